#!/usr/bin/env bash
# Builds the ns-3 cross-validation programs beside this file (every *.cc) against the
# ns-3 3.44 wheel from PyPI, sharing the private virtualenv of the anchor benchmark
# (shared/anchors/ns3/build.sh), so the wheel is downloaded at most once.
# Prints one line per program: NAME PATH.
# Usage: build.sh [CACHE_DIR] [NAME...]   (default cache: ~/.cache/pathpool-anchors;
#        default NAMEs: every *.cc here, e.g. dumbbell_cc ns3_defaults)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-$HOME/.cache/pathpool-anchors}
shift || true
mkdir -p "$cache/validation"
if [ ! -x "$cache/ns3env/bin/python" ]; then
  python3 -m venv "$cache/ns3env"
  "$cache/ns3env/bin/pip" install -q "ns3==3.44.post0" >&2
fi
# The wheel installs a namespace package `ns3` whose directory holds include/ and lib64/.
ns=$("$cache/ns3env/bin/python" - <<'PY'
import importlib.util, os
spec = importlib.util.find_spec("ns3")
print(os.path.dirname(spec.origin) if spec.origin else list(spec.submodule_search_locations)[0])
PY
)
if [ ! -d "$ns/include/ns3" ] || [ ! -d "$ns/lib64" ]; then
  echo "build.sh: no include/ns3 or lib64 under $ns: unexpected ns3 wheel layout" >&2
  exit 1
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for f in "$here"/*.cc; do names+=("$(basename "$f" .cc)"); done
fi
for name in "${names[@]}"; do
  src="$here/$name.cc"
  out="$cache/validation/ns3-$name"
  if [ ! -x "$out" ] || [ "$src" -nt "$out" ] || [ "$0" -nt "$out" ]; then
    echo "building $name" >&2
    g++ -O2 -std=c++20 -I"$ns/include" "$src" -o "$out.tmp" -L"$ns/lib64" -Wl,-rpath,"$ns/lib64" \
      -lns3.44-core -lns3.44-network -lns3.44-internet -lns3.44-point-to-point \
      -lns3.44-applications -lns3.44-traffic-control -lns3.44-point-to-point-layout
    mv "$out.tmp" "$out"
  fi
  echo "$name $out"
done
