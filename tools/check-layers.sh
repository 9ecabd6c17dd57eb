#!/bin/sh
# Fails when a source file includes a header from a layer above its own.
# The order, lowest first (docs/design.md, "Layers"); tests/ may use them all.
LAYERS="lib kernel results analysis bench workloads dashboards cli"

cd "$(dirname "$0")/.." || exit 3
rank() {
	i=0
	for l in $LAYERS; do
		i=$((i + 1))
		[ "$l" = "$1" ] && { echo $i; return; }
	done
	echo 0
}
bad=0
for dir in $LAYERS; do
	[ -d "$dir" ] || continue
	# Each quoted include, resolved against the including file's folder.
	find "$dir" -name '*.[ch]' | sort | while read -r f; do
		from=$(rank "$dir")
		sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f" |
		while read -r inc; do
			target=$(realpath -m --relative-to=. "$(dirname "$f")/$inc")
			[ -e "$target" ] || continue	# generated (build/): skeletons, revision.h
			to=$(rank "${target%%/*}")
			if [ "$to" -gt "$from" ]; then
				echo "kbench: layers: $f includes $target (${target%%/*}/ is above $dir/)"
			fi
		done
	done
done >"${TMPDIR:-/tmp}/check-layers.$$"
if [ -s "${TMPDIR:-/tmp}/check-layers.$$" ]; then
	cat "${TMPDIR:-/tmp}/check-layers.$$" >&2
	echo "kbench: layers: $(wc -l <"${TMPDIR:-/tmp}/check-layers.$$") upward includes (order: $LAYERS)" >&2
	bad=1
fi
rm -f "${TMPDIR:-/tmp}/check-layers.$$"
exit $bad
