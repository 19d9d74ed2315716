#!/usr/bin/env bash
# The trees scripts/speed/race.py was run on, rebuilt as plain directories
# (no .git) under DEST (default /work/speed-trees):
#
#   scripts/speed/trees.sh [DEST]
#
# Five repositories at the commits measured, cloned from GitHub, and the
# Linux kernel source from Debian's linux-source-6.1 package (about 78,000
# files). The relevance trees (/work/relevance/trees) are rebuilt by
# scripts/relevance/build-trees.py.
set -euo pipefail
dest=${1:-/work/speed-trees}
mkdir -p "$dest"
while read -r name url commit; do
  [ -d "$dest/$name" ] && continue
  tmp=$(mktemp -d)
  git clone --quiet --filter=blob:none --no-checkout "$url" "$tmp/repo"
  mkdir -p "$dest/$name"
  git -C "$tmp/repo" archive "$commit" | tar -x -C "$dest/$name"
  rm -rf "$tmp"
done <<'TREES'
hashbrown https://github.com/rust-lang/hashbrown 33adaf60bc14bf6a9060909bb4900289380b050e
cobra https://github.com/spf13/cobra adbc8813901bba65827259daa8e22ff94ec1f30e
immer https://github.com/immerjs/immer 061c2425e1c9dff89e4e4189d42af1b7839dfe0a
pytest https://github.com/pytest-dev/pytest df87db7b0462fb764ef73fa00561adf8ad047572
hono https://github.com/honojs/hono 28a9c128912de19f3fb28b00ae289c9b93f6f392
TREES
if [ ! -d "$dest/linux" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && apt-get download linux-source-6.1)
  dpkg-deb --fsys-tarfile "$tmp"/linux-source-6.1_*_all.deb |
    tar -x -C "$tmp" --wildcards './usr/src/linux-source-6.1.tar.xz'
  mkdir -p "$dest/linux"
  tar -xJf "$tmp/usr/src/linux-source-6.1.tar.xz" -C "$dest/linux" --strip-components=1
  # Debian's packaging adds `/*` and `!/debian/` to the top .gitignore,
  # which hides the whole tree from any walker that respects it; the
  # upstream file is what a checkout of the kernel has.
  sed -i -e '\#^/\*$#d' -e '\#^!/debian/$#d' "$dest/linux/.gitignore"
  rm -rf "$tmp"
fi
