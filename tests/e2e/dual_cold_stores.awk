# dual_cold_stores.awk — for test_dual_loopentry.sh: over an IR dump (names kept), counts the stores in the
# loop-entry cold blocks (hp.loop.call*) of values a getelementptr or a cast defined, and all their
# stores. Prints "ADDRESS-OR-CAST ALL".
/^define/ {delete def}
/^ *%[^ ]+ = (getelementptr|bitcast|zext|sext|trunc|ptrtoint|inttoptr|addrspacecast)/ {def[$1] = 1}
/^[A-Za-z0-9_.]+:/ {cold = ($1 ~ /^hp\.loop\.call/)}
cold && /^ *store / {v = $3; sub(/,$/, "", v); if (v in def) n++; all++}
END {print n + 0, all + 0}
