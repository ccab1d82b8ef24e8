# The protocol's version is one number: proto/PROTOCOL.md states the
# PROTO_VERSION of proto/proto.h, and the agent built from it says so.
. tests/e2e/lib.sh
DOC=proto/PROTOCOL.md

want=$(sed -n 's/^#define[[:space:]]*PROTO_VERSION[[:space:]]\{1,\}\([0-9]\{1,\}\).*/\1/p' proto/proto.h)
[ -n "$want" ] || fail "no #define PROTO_VERSION N in proto/proto.h"
expect_eq "PROTO_VERSION lines in proto/proto.h" "$(wc -l <<< "$want")" 1

stated=$(sed -n 's/^Protocol version described here: \*\*\([0-9]\{1,\}\)\*\*\.$/\1/p' "$DOC")
[ -n "$stated" ] || fail "$DOC has no line 'Protocol version described here: **N**.'"
expect_eq "the version $DOC describes (proto/proto.h: $want)" "$stated" "$want"

"$AGENT" --version > "$T/version"
expect_grep "^orch-agent .* protocol $want\$" "$T/version"
echo "protocol version $want: proto/proto.h, $DOC and orch-agent --version agree"
