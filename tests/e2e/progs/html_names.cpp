/* html_names.cpp — functions whose report names hold HTML's special characters, for the HTML
 * report's escaping test (tests/e2e/test_html.sh): operator< and operator& on a struct, and a
 * template instance Box<Key>; each is called a few thousand times from main, so that all of them
 * are among the report's hot methods.
 *   html_names N   runs N rounds; prints the sum (so nothing is optimised away).
 */
#include <cstdio>
#include <cstdlib>

struct Key { long k; };
template <typename T> struct Box { T v; };

__attribute__((noinline)) bool operator<(const Key &a, const Key &b) { return a.k < b.k; }
__attribute__((noinline)) Key operator&(const Key &a, const Key &b) { return Key{a.k & b.k}; }

template <typename T> __attribute__((noinline)) long unbox(const Box<T> &b) { return b.v.k; }

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;
    for (long i = 0; i < n; i++) {
        Key a{i}, b{i ^ 5};
        Box<Key> box{a & b};
        if (a < b) sum += unbox(box);
        else sum -= unbox(box);
    }
    printf("%ld\n", sum);
    return 0;
}
