# Sourced by the device-side scripts that run the static binaries
# (gpu-run.sh, gpu-crossval.sh, gpu-fp8-tiles.sh): sets TILEC_ROOT, unpacks
# what `scripts/gpu-build.sh tests|crossval` staged in .carry/ into $bin,
# and makes the log folder $out ($OUT, which the device tool brings back).
TILEC_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bin=/tmp/tilec-bin/bin
mkdir -p /tmp/tilec-bin
tar -C /tmp/tilec-bin -xJf "$TILEC_ROOT/.carry/bin.tar.xz" || exit 1
out=${OUT:-/tmp/tilec-gpu}
mkdir -p "$out"
