#!/usr/bin/env bash
# Builds the libFuzzer harness of the gSOAP service's request path (fuzz.cmake) and runs it
# for a bounded time on a fresh seed corpus (make_seeds.py) plus the kept corpus and the
# committed regression inputs. Prints executions, executions/s and the corpus size;
# exits non-zero when the fuzzer found a crash, a leak, a timeout or an out-of-memory
# (the input is then in ARTIFACTS, see docs/fuzzing.md).
#
#   services/gsoap/fuzz/run.sh [--seconds 120] [--corpus DIR] [--build-dir DIR] [--max-len N]
#
# Needs install.sh first (clang, libFuzzer, and the gSOAP source for an instrumented runtime;
# TESTBED_FUZZ_GSOAP_SRC names another gsoap/ source folder).
set -euo pipefail

# All in one function, read whole before it runs: editing this file during a long run is safe.
main() {
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  root=$(cd "$here/../../.." && pwd)
  seconds=120
  build=$root/build/fuzz
  corpus=
  max_len=16384
  while (($#)); do
    case $1 in
      --seconds) seconds=$2; shift 2 ;;
      --corpus) corpus=$2; shift 2 ;;
      --build-dir) build=$2; shift 2 ;;
      --max-len) max_len=$2; shift 2 ;;
      -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
      *) echo "run.sh: unknown argument $1 (see --help)" >&2; exit 2 ;;
    esac
  done
  corpus=${corpus:-$build/corpus}
  command -v clang++ >/dev/null || {
    echo "run.sh: clang++ not found; run services/gsoap/fuzz/install.sh first" >&2; exit 2; }

  src_opt=()   # where install.sh puts gSOAP's source (whatever --build-dir says)
  gsoap_src=${TESTBED_FUZZ_GSOAP_SRC:-$root/build/fuzz/gsoap-src/gsoap}
  [ -f "$gsoap_src/stdsoap2.cpp" ] && src_opt=(-DTESTBED_FUZZ_GSOAP_SRC="$gsoap_src")
  echo "run.sh: building tb-gsoap-fuzz in $build/tree" >&2
  mkdir -p "$build"
  cmake -S "$root/services/gsoap" -B "$build/tree" -DTESTBED_FUZZ=ON -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER=clang++ -DTESTBED_CONTRACT_WSDL="$root/services/contract/testbed.wsdl" \
    "${src_opt[@]}" >"$build/configure.log" 2>&1 || { cat "$build/configure.log" >&2; exit 2; }
  cmake --build "$build/tree" --target tb-gsoap-fuzz -j "$(nproc)" >"$build/build.log" 2>&1 ||
    { tail -30 "$build/build.log" >&2; exit 2; }

  seeds=$build/seeds
  rm -rf "$seeds" && python3 "$here/make_seeds.py" "$seeds" >&2
  artifacts=$build/artifacts
  mkdir -p "$corpus" "$artifacts"
  log=$build/fuzz-$(date -u +%Y%m%d-%H%M%S).log
  echo "run.sh: fuzzing for ${seconds}s; corpus $corpus, log $log" >&2
  set +e
  started=$SECONDS
  # stack traces for UBSan findings too (ASan prints them anyway)
  UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} "$build/tree/tb-gsoap-fuzz" -max_total_time="$seconds" -max_len="$max_len" -timeout=10 \
    -rss_limit_mb=2048 -dict="$here/soap.dict" -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$corpus" "$seeds" "$here/regressions" >"$log" 2>&1
  status=$?
  elapsed=$((SECONDS - started))
  set -e
  stat() { sed -n "s/^stat::$1: *//p" "$log" | tail -1; }
  execs=$(stat number_of_executed_units); rate=$(stat average_exec_per_sec)
  files=$(find "$corpus" -type f | wc -l); bytes=$(du -sb "$corpus" | cut -f1)
  echo "fuzz: ${execs:-?} executions in ${elapsed} s (${rate:-?}/s), corpus ${files} inputs (${bytes} bytes), exit ${status}"
  if ((status != 0)); then
    grep -E "ERROR: |SUMMARY: |Test unit written to" "$log" >&2 || tail -40 "$log" >&2
    echo "run.sh: the fuzzer found a problem; the input is in $artifacts (full log: $log)" >&2
  fi
  exit $status
}

main "$@"
