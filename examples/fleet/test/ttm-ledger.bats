#!/usr/bin/env bats
# Guard: the pinned-RAM (TTM) ledger of each radiance endpoint must fit under TTM_MIN_MIB.
# kvgate's ttm/co-change refuses a commit that moves the ledger without touching this file.

ledger() {
  # TP × HOST_POOL_MIB + PLE_TABLE_MIB + PREFIX_CACHE_MIB + STATICS_MIB + slots × 111.98
  awk -v tp="$1" -v pool="$2" -v ple="$3" -v prefix="$4" -v statics="$5" -v slots="$6" \
    'BEGIN { v = tp * pool + ple + prefix + statics + slots * 111.98; printf "%d\n", (v == int(v)) ? v : int(v) + 1 }'
}

@test "frank-archon: TTM_MIN_MIB covers the ledger" {
  source scripts/frank-archon.env
  slots=$(( MAX_SEQS * (1 + ${CHECKPOINT_RETAIN:-0}) ))
  need=$(ledger "$TP" "$HOST_POOL_MIB" "${PLE_TABLE_MIB:-0}" "${PREFIX_CACHE_MIB:-0}" "${STATICS_MIB:-2048}" "$slots")
  [ "$TTM_MIN_MIB" -ge "$need" ]
}
