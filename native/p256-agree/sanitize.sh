#!/usr/bin/env bash
# Builds the addon with AddressSanitizer and UndefinedBehaviorSanitizer into a
# folder of its own (the installed build is left alone), then runs its unit
# tests and stress.mjs against that build, with the sanitizers' runtime loaded
# into Node. Any report stops the run with a failure. Needs gcc (or cc) with
# libasan and libubsan, which Debian's g++ brings.
#
#   native/p256-agree/sanitize.sh        (from anywhere; CI runs it before npm test)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

libasan="$(gcc -print-file-name=libasan.so)"
if [ ! -e "$libasan" ]; then
  echo "sanitize: gcc has no libasan.so (Debian: apt-get install g++)" >&2
  exit 1
fi

build="$(mktemp -d)"
trap 'rm -rf "$build"' EXIT
cp "$here/agree.c" "$here/binding.gyp" "$here/package.json" "$build/"

# node-gyp as install.mjs runs it: against the running Node's headers when they are installed.
node_gyp="$(dirname "$(readlink -f "$(command -v npm)")")/../node_modules/node-gyp/bin/node-gyp.js"
prefix="$(cd "$(dirname "$(readlink -f "$(command -v node)")")/.." && pwd)"
nodedir=()
[ -e "$prefix/include/node/node_api.h" ] && nodedir=("--nodedir=$prefix")
flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer -g -O1"
(cd "$build" && CFLAGS="$flags" LDFLAGS="-fsanitize=address,undefined" \
  node "$node_gyp" rebuild "${nodedir[@]}" --loglevel=warn >/dev/null)
addon="$build/build/Release/p256_agree.node"
ldd "$addon" | grep -q libasan || { echo "sanitize: $addon is not built with ASan" >&2; exit 1; }

asan_options="abort_on_error=1:halt_on_error=1"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"

# LeakSanitizer on: plain Node leaves nothing for it to report at exit, so a key,
# context or buffer the addon fails to free on any path (valid or refused input,
# main thread or worker) fails the run.
echo "sanitize: stress.mjs on the ASan/UBSan build, with leak detection"
ASAN_OPTIONS="detect_leaks=1:$asan_options" LD_PRELOAD="$libasan" node "$here/stress.mjs" "$addon"

echo "sanitize: the addon's unit tests on the ASan/UBSan build"
cd "$root"
# Leak detection off here: Vitest's own native bundler and V8 in its worker
# processes leave allocations at exit that are not the addon's (stress.mjs above
# covers leaks). CI=true: a build that fails to load fails the tests, never skips them.
ASAN_OPTIONS="detect_leaks=0:$asan_options" CI=true P256_AGREE_ADDON="$addon" LD_PRELOAD="$libasan" \
  npx vitest run --config "$here/vitest.sanitize.config.mts"
