// bench/export/work.js - a QuickJS workload for bench/export: objects, arrays, strings, closures,
// regexps and sorting, sized by SCALE (run.sh substitutes it). Prints "ok <checksum>".
const SCALE = @SCALE@;
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function objects(n) {
    let s = 0;
    for (let i = 0; i < n; i++) {
        const o = { a: i, b: i * 2, c: "k" + (i % 97) };
        s += o.a + o.b + o.c.length;
    }
    return s;
}
function strings(n) {
    let parts = [];
    for (let i = 0; i < n; i++) parts.push((i * 7919 % 10007).toString(36));
    const text = parts.join(",");
    return (text.match(/[a-f]+/g) || []).length + text.split(",").length;
}
function sorting(n) {
    const a = [];
    let x = 12345;
    for (let i = 0; i < n; i++) { x = (x * 1103515245 + 12345) % 2147483648; a.push(x); }
    a.sort((p, q) => p - q);
    for (let i = 1; i < a.length; i++) if (a[i - 1] > a[i]) throw new Error("not sorted");
    return a[n >> 1] % 1000;
}
function closures(n) {
    const fs = [];
    for (let i = 0; i < 64; i++) fs.push((v) => v * i + 1);
    let s = 0;
    for (let i = 0; i < n; i++) s = (s + fs[i & 63](i)) % 1000003;
    return s;
}
let sum = fib(22 + (SCALE > 100000 ? 2 : 0));
sum += objects(SCALE) + strings(SCALE / 4) + sorting(SCALE / 2) + closures(SCALE * 2);
console.log("ok " + sum);
