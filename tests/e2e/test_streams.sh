#!/usr/bin/env bash
# test_streams.sh — hot data streams end to end (bursty datastream sampling, docs/runtime.md):
#  (a) progs/streams.c plants three linked-list walks among random reads; built with
#      `hotprof cc --hooks=memory -O1` and run with --sample datastream:period=P,burst=B,
#      `report --streams --format json` must list each planted stream (its node addresses in walk
#      order) with an estimated frequency within 30% of the true one, and no other hot stream
#      (check_streams.py); the text table fits 100 columns;
#  (b) two threads walking the same lists: the reader merges their detectors (2 detectors);
#  (c) a SUMMARY payload corrupted behind valid section checksums (a flipped byte, a cut blob) is
#      rejected with one clear message; an exhaustive profile has no streams and says so.
. "$(dirname "$0")/lib.sh"
# These checks test the live HPS counters (exact Figure 4 patterns, scaled estimates); patched
# bursts (the default where hooks are patchable) have their own tests in test_patch.sh.
export HOTPROF_BURSTS=live
P="$ROOT/tests/e2e/progs"
cd "$T"
ROUNDS=20000

# corrupt IN OUT MODE: rewrite the first SUMMARY section's payload (MODE flip: one byte in the
# middle of the detector's blob; cut: its last 40 bytes dropped), fixing both section CRCs.
corrupt() {
    python3 - "$@" <<'PY'
import struct, sys, zlib
src, dst, mode = sys.argv[1:4]
d = bytearray(open(src, "rb").read())
off = 32
while off + 24 <= len(d):
    magic, typ, length = struct.unpack_from("<IIQ", d, off)
    if typ == 8:
        pay = bytearray(d[off + 24:off + 24 + length])
        if mode == "flip":
            pay[8 + (len(pay) - 8) // 2] ^= 0x40
        else:
            pay = pay[:-40]
        hdr = struct.pack("<IIQI", magic, typ, len(pay), zlib.crc32(pay))
        hdr += struct.pack("<I", zlib.crc32(hdr))
        d[off:off + 24 + length] = hdr + pay
        open(dst, "wb").write(d)
        sys.exit(0)
    off += 24 + length
sys.exit("no summary section")
PY
}

if "$HP" cc --hooks=memory -O1 -o streams "$P/streams.c"; then
    # ---- (a) planted streams
    "$HP" run -q --seed 7 --sample datastream:period=2000,burst=200 -o s.data -- ./streams $ROUNDS >s.out
    check_eq "streams: bursty datastream run succeeds" "$?" 0
    "$HP" report --streams --top 0 --format json s.data >s.json
    python3 "$ROOT/tests/e2e/check_streams.py" s.out s.json "streams 1/11"
    "$HP" report --streams s.data >s.txt
    check "streams: text table" grep -q '^Hot data streams (heat = length x frequency): 3 of 3$' s.txt
    check_eq "streams: text rows fit 100 columns" "$(awk 'length > 100' s.txt | wc -l)" 0
    # a sparser sampling still finds them (fewer samples: wider error)
    "$HP" run -q --seed 8 --sample datastream:period=9900,burst=100 -o s2.data -- ./streams $ROUNDS >s2.out
    "$HP" report --streams --top 0 --format json s2.data >s2.json
    python3 "$ROOT/tests/e2e/check_streams.py" s2.out s2.json "streams 1/100"

    # ---- (b) two threads: two detectors merged by the reader
    "$HP" run -q --seed 9 --sample datastream:period=2000,burst=200 -o t.data -- ./streams 10000 2 >t.out
    "$HP" report --streams --top 0 --format json t.data >t.json
    check_eq "streams: two threads, two detectors merged" \
        "$(python3 -c 'import json; print(json.load(open("t.json"))["datastream"]["detectors"])')" 2
    python3 "$ROOT/tests/e2e/check_streams.py" t.out t.json "streams 2 threads"

    # ---- (c) corrupt summaries, exhaustive profile
    corrupt s.data flip.data flip && check_fails_cleanly "streams: flipped byte in a summary rejected" \
        'corrupt datastream summary' "$HP" report --streams flip.data
    corrupt s.data cut.data cut && check_fails_cleanly "streams: cut summary rejected" \
        'corrupt datastream summary' "$HP" report --streams cut.data
    "$HP" run -q -o exh.data -- ./streams 100 >/dev/null
    "$HP" report --streams --format json exh.data >exh.json
    check_eq "streams: exhaustive profile has no streams" \
        "$(python3 -c 'import json; print(len(json.load(open("exh.json"))["streams"]))')" 0
else
    fail "streams: build"
fi
