#!/bin/sh
# gateway-adapter.sh: an example adapter between skewcheck's gateway profile and an API
# gateway that keeps its configuration in a store of its own (a database, its own control
# plane, a directory in its own format) instead of reading skewcheck's UpstreamCluster
# documents. See docs/certify-gateway.md.
#
# skewcheck writes every configuration as one file, $SKEWCHECK_GATEWAY_CONFIG/upstreamclusters.yaml
# (YAML documents separated by ---), and runs the apply command after each change. This
# script translates that file into the gateway's store, then asks the gateway to serve by
# it and returns once it does (exit 0) or with the gateway's reason when it refuses it:
#
#   --gateway-command       "exec sh gateway-adapter.sh start 'exec your-gateway --store \"\$GATEWAY_STORE\" ...'"
#   --gateway-apply-command 'exec sh gateway-adapter.sh apply'
#
# "start" stores the first configuration, then runs the command it is given (sh -c, so the
# command may use $GATEWAY_STORE; exec it, so the gateway stays in the process group
# skewcheck counts connections of): skewcheck sends /version through the gateway before
# its first apply, and an apiserver must answer it.
#
# Environment (besides skewcheck's, see skewcheck conformance --help):
#   GATEWAY_STORE   where the translated configuration goes
#                   (default: beside $SKEWCHECK_GATEWAY_CONFIG, in vendor-store/)
#   GATEWAY_RELOAD  a command that makes the gateway serve by the store and exits 0 once it
#                   does, non-zero saying why when it refuses it (required by "apply")
#
# As written it runs skewcheck's reference gateway from a store of its own, one file per
# UpstreamCluster named after it (make test runs it so, with the reference in --host-routing
# mode: GATEWAY_RELOAD='bin/skewcheck reference gateway wait --config-dir "$GATEWAY_STORE"').
# For your gateway, replace translate_one (and, if your store is not a directory, store):
# for instance, turn the document into your own resource with yq and kubectl apply it to
# your gateway's control plane.
set -eu

: "${SKEWCHECK_GATEWAY_CONFIG:?is not set: skewcheck runs this script with its environment}"
GATEWAY_STORE=${GATEWAY_STORE:-$(dirname "$SKEWCHECK_GATEWAY_CONFIG")/vendor-store}
export GATEWAY_STORE
in="$SKEWCHECK_GATEWAY_CONFIG/upstreamclusters.yaml"

# translate_one reads one UpstreamCluster document on stdin and writes what the gateway's
# store holds for it on stdout. The reference reads UpstreamCluster documents as they are.
translate_one() {
	cat
}

# store replaces the gateway's whole configuration with the documents in $in: one file per
# UpstreamCluster, each written whole then renamed into place, and the files of clusters
# that are gone removed.
store() {
	mkdir -p "$GATEWAY_STORE"
	work=$(mktemp -d "$GATEWAY_STORE/.new.XXXXXX")
	# Split on --- lines; each document goes to a file named after its metadata.name.
	awk -v dir="$work" '
		function flush() { if (doc != "") { if (name == "") name = "unnamed-" n; print doc > (dir "/" name ".doc"); close(dir "/" name ".doc") } doc = ""; name = ""; inmeta = 0 }
		/^---[ \t]*$/ { flush(); n++; next }
		/^metadata:/ { inmeta = 1 }
		inmeta && /^  name:/ && name == "" { name = $2; gsub(/["\047]/, "", name) }
		/^[a-z]/ && !/^metadata:/ { inmeta = 0 }
		{ doc = doc $0 "\n" }
		END { flush() }
	' "$in"
	for d in "$work"/*.doc; do
		[ -e "$d" ] || continue
		name=$(basename "$d" .doc)
		translate_one <"$d" >"$work/$name.yaml.tmp"
		mv "$work/$name.yaml.tmp" "$GATEWAY_STORE/$name.yaml"
		echo "$name.yaml" >>"$work/keep"
	done
	for f in "$GATEWAY_STORE"/*.yaml; do
		[ -e "$f" ] || continue
		grep -qxF "$(basename "$f")" "$work/keep" 2>/dev/null || rm -f "$f"
	done
	rm -rf "$work"
}

case "${1:-}" in
start)
	[ $# -eq 2 ] || { echo "usage: $0 start '<command that runs the gateway>'" >&2; exit 2; }
	store
	exec sh -c "$2"
	;;
apply)
	: "${GATEWAY_RELOAD:?is not set: the command that makes the gateway serve by $GATEWAY_STORE and waits for it}"
	store
	exec sh -c "$GATEWAY_RELOAD"
	;;
*)
	echo "usage: $0 start '<command that runs the gateway>' | $0 apply" >&2
	exit 2
	;;
esac
