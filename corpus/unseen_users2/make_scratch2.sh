#!/bin/sh
# Build the scratch tree lower_users2.py lowers (default /tmp/users2-src/examples) from the fetch snapshots
# (/work/.mirror/OWNER+NAME/repo, commits in README.md) plus this directory's drivers/.
set -e
DEST=${1:-/tmp/users2-src/examples}
M=/work/.mirror
D=$(cd "$(dirname "$0")" && pwd)/drivers
x() { mirror=$1; dir=$2; shift 2; mkdir -p "$DEST/$dir"; git -C "$M/$mirror/repo" archive HEAD "$@" | tar -x -C "$DEST/$dir"; }
x tile-ai+TileOPs tileops src
x Anjiang-Wei+tilelang_PTX tl_ptx PTX
cp "$D"/_tileops_common.py "$D"/drv_tileops_*.py "$DEST/tileops/"
