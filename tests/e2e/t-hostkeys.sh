# Host keys as OpenSSH checks them, against a real sshd (tests/lab): a host
# pinned with a key of another type than it offers is a changed key, even
# with --accept-new-host-keys; lines orch cannot parse are skipped with
# FILE:LINE and hide no pin after them; hashed names; @revoked and
# @cert-authority; a line orch cannot read that names the host; the
# global known_hosts files and ~/.ssh/known_hosts2; UserKnownHostsFile
# lists with quoted paths.
. tests/e2e/lib.sh
. tests/lab/lab.sh

LAB_READY_SECS=${LAB_READY_SECS:-30} lab_up 1 || fail "lab did not come up"
INV="$LAB_INVENTORY"
a1=$(lab_addr h1); p1=$(lab_port h1)
if [ "$p1" = 22 ]; then n1=$a1; else n1="[$a1]:$p1"; fi
pub() { cut -d' ' -f1,2 "$LAB/h1/ssh_host_$1_key.pub"; }
fp() { ssh-keygen -lf "$LAB/h1/ssh_host_$1_key.pub" | cut -d' ' -f2; }
ED_FP=$(fp ed25519); EC_FP=$(fp ecdsa)

# check_h1 OUT KNOWN_HOSTS [ARGS...]: orch check of h1; returns its code
# (3 when the key is refused; 0 when it is accepted: no agent is
# deployed, which orch run would do; the HOST KEY column says which).
check_h1() {
	local out=$1 kh=$2; shift 2
	ORCH_KNOWN_HOSTS="$kh" run_orch "$out" check --inventory="$INV" --hosts=h1 "$@"
}

note "h1 offers only its ECDSA key (as a man in the middle with an ECDSA key would)"
echo "HostKeyAlgorithms ecdsa-sha2-nistp256" > "$LAB/h1/sshd_config.extra"
lab_stop_sshd h1 && lab_start_sshd h1 || fail "h1 did not restart"

note "pinned with ED25519, offered ECDSA: changed, even with --accept-new-host-keys"
echo "$n1 $(pub ed25519)" > "$T/kh-ed"
cp "$T/kh-ed" "$T/kh-ed.orig"
rc=0; check_h1 "$T/c1" "$T/kh-ed" --accept-new-host-keys || rc=$?
cat "$T/c1"
expect_eq "type-changed exit" "$rc" 3
expect_grep "HOST KEY CHANGED for \\[?$a1" "$T/c1"
grep -qF "ECDSA key $EC_FP" "$T/c1" || fail "the offered ECDSA fingerprint is not in the message"
grep -qF "ED25519 key $ED_FP" "$T/c1" || fail "the pinned ED25519 fingerprint is not in the message"
grep -qF "$T/kh-ed:1 pins" "$T/c1" || fail "the pin's FILE:LINE is not in the message"
grep -qF "ssh-keygen -f $T/kh-ed -R '$n1'" "$T/c1" || fail "no exact ssh-keygen -R hint"
cmp -s "$T/kh-ed" "$T/kh-ed.orig" || fail "known_hosts was changed"
rc=0; check_h1 "$T/c1b" "$T/kh-ed" || rc=$?
expect_eq "type-changed exit without --accept-new-host-keys" "$rc" 3
expect_grep 'HOST KEY CHANGED' "$T/c1b"
expect_grep '^h1 +yes +REFUSED ' "$T/c1b"

note "garbage and a long line before the pin: warned with FILE:LINE, the pin applies"
{ echo "this is not a known_hosts line"; head -c 20000 /dev/zero | tr '\0' A; echo; echo "$n1 $(pub ecdsa)"; } > "$T/kh-garbage"
check_h1 "$T/c2" "$T/kh-garbage" || true
cat "$T/c2"
expect_grep "^orch: $T/kh-garbage:1: .*line skipped" "$T/c2"
expect_grep "^orch: $T/kh-garbage:2: not HOSTS KEYTYPE KEY, line skipped" "$T/c2"
expect_grep '^h1 +yes +known +ok ' "$T/c2"
# Another key pinned after the garbage still refuses the offered one.
{ echo "garbage"; head -c 20000 /dev/zero | tr '\0' A; echo; echo "$n1 $(pub ed25519)"; } > "$T/kh-garbage2"
cp "$T/kh-garbage2" "$T/kh-garbage2.orig"
rc=0; check_h1 "$T/c3" "$T/kh-garbage2" --accept-new-host-keys || rc=$?
cat "$T/c3"
expect_eq "changed key after garbage exit" "$rc" 3
expect_grep 'HOST KEY CHANGED' "$T/c3"
cmp -s "$T/kh-garbage2" "$T/kh-garbage2.orig" || fail "known_hosts was changed"

note "a line of any length: another key pinned after 800 names refuses the offered one"
# Over 16 KiB: the line used to be skipped, and accept-new added a key.
{ for i in $(seq 1 800); do printf 'node%04d.example.lab,' "$i"; done; echo "$n1 $(pub ed25519)"; } > "$T/kh-long"
[ "$(wc -c < "$T/kh-long")" -gt 16384 ] || fail "kh-long is not over 16 KiB"
cp "$T/kh-long" "$T/kh-long.orig"
rc=0; check_h1 "$T/c3l" "$T/kh-long" --accept-new-host-keys || rc=$?
cat "$T/c3l"
expect_eq "changed key after 800 names exit" "$rc" 3
expect_grep 'HOST KEY CHANGED' "$T/c3l"
cmp -s "$T/kh-long" "$T/kh-long.orig" || fail "known_hosts was changed"

note "hashed names: a hashed ECDSA pin is known, a hashed ED25519 pin is a changed key"
echo "$n1 $(pub ecdsa)" > "$T/kh-hashed-ec"
echo "$n1 $(pub ed25519)" > "$T/kh-hashed-ed"
ssh-keygen -q -H -f "$T/kh-hashed-ec" >/dev/null 2>&1 && ssh-keygen -q -H -f "$T/kh-hashed-ed" >/dev/null 2>&1 || fail "ssh-keygen -H"
grep -q '^|1|' "$T/kh-hashed-ec" || fail "not hashed"
check_h1 "$T/c4" "$T/kh-hashed-ec" || true
cat "$T/c4"
expect_grep '^h1 +yes +known +ok ' "$T/c4"
rc=0; check_h1 "$T/c5" "$T/kh-hashed-ed" --accept-new-host-keys || rc=$?
expect_eq "hashed other-type pin exit" "$rc" 3
expect_grep 'HOST KEY CHANGED' "$T/c5"

note "@revoked: refused even when pinned, even with --accept-new-host-keys"
{ echo "$n1 $(pub ecdsa)"; echo "@revoked * $(pub ecdsa)"; } > "$T/kh-revoked"
rc=0; check_h1 "$T/c6" "$T/kh-revoked" --accept-new-host-keys || rc=$?
cat "$T/c6"
expect_eq "revoked exit" "$rc" 3
grep -qF "REVOKED HOST KEY for" "$T/c6" || fail "no REVOKED message"
grep -qF "$T/kh-revoked:2 marks @revoked" "$T/c6" || fail "the @revoked line is not named"
echo "@revoked * $(pub ecdsa)" > "$T/kh-revoked2"
rc=0; check_h1 "$T/c7" "$T/kh-revoked2" --accept-new-host-keys || rc=$?
expect_eq "revoked, not pinned, exit" "$rc" 3
[ "$(wc -l < "$T/kh-revoked2")" = 1 ] || fail "a revoked key was added"

note "@cert-authority alone: refused with a clear message (orch checks no certificates)"
echo "@cert-authority * $(pub ed25519)" > "$T/kh-ca"
rc=0; check_h1 "$T/c8" "$T/kh-ca" --accept-new-host-keys || rc=$?
cat "$T/c8"
expect_eq "cert-authority exit" "$rc" 3
expect_grep '@cert-authority' "$T/c8"
expect_grep 'orch cannot verify host certificates' "$T/c8"
[ "$(wc -l < "$T/kh-ca")" = 1 ] || fail "a key was added beside the @cert-authority"

note "a line orch cannot read that names the host: refused as unverifiable, never new"
echo "$n1 ecdsa-sha2-nistp256 !!!!" > "$T/kh-unver"
cp "$T/kh-unver" "$T/kh-unver.orig"
rc=0; check_h1 "$T/c11" "$T/kh-unver" --accept-new-host-keys || rc=$?
cat "$T/c11"
expect_eq "unverifiable exit" "$rc" 3
grep -qF "cannot be verified: $T/kh-unver:1 names the host" "$T/c11" || fail "the unreadable line is not named"
cmp -s "$T/kh-unver" "$T/kh-unver.orig" || fail "known_hosts was changed"

# ssh_config for h1 with the given known_hosts lines (issue 27, #4 and #7).
h1cfg() {
	printf 'Host h1\n\tHostName %s\n\tPort %s\n\tUser %s\n\tIdentityFile %s\n\tIdentitiesOnly yes\n' \
	    "$a1" "$p1" "$LAB_USER" "$LAB_KEY"
	printf '\t%s\n' "$@"
}
: > "$T/empty.ini"

note "a key pinned only in GlobalKnownHostsFile to another key: changed, even with --accept-new-host-keys"
: > "$T/kh-user"
echo "$n1 $(pub ed25519)" > "$T/kh-global"
h1cfg "UserKnownHostsFile $T/kh-user" "GlobalKnownHostsFile /nonexistent $T/kh-global" > "$T/cfg-global"
rc=0; ORCH_KNOWN_HOSTS= run_orch "$T/c12" check --inventory="$T/empty.ini" --ssh-config="$T/cfg-global" --hosts=h1 --accept-new-host-keys || rc=$?
cat "$T/c12"
expect_eq "global pin exit" "$rc" 3
grep -qF "$T/kh-global:1 pins ED25519 key $ED_FP" "$T/c12" || fail "the global pin is not named"
[ ! -s "$T/kh-user" ] || fail "a key was added to the user file"
echo "$n1 $(pub ecdsa)" > "$T/kh-global"
ORCH_KNOWN_HOSTS= run_orch "$T/c13" check --inventory="$T/empty.ini" --ssh-config="$T/cfg-global" --hosts=h1 || true
expect_grep '^h1 +yes +known +ok ' "$T/c13"

note "~/.ssh/known_hosts2 is read: another key pinned there is a changed key"
mkdir -p "$T/home/.ssh"
echo "$n1 $(pub ed25519)" > "$T/home/.ssh/known_hosts2"
rc=0; HOME="$T/home" ORCH_KNOWN_HOSTS= run_orch "$T/c14" check --inventory="$INV" --hosts=h1 --accept-new-host-keys || rc=$?
cat "$T/c14"
expect_eq "known_hosts2 pin exit" "$rc" 3
grep -qF "$T/home/.ssh/known_hosts2:1 pins" "$T/c14" || fail "known_hosts2 is not named"
[ ! -e "$T/home/.ssh/known_hosts" ] || fail "a key was added to known_hosts"

note "a quoted UserKnownHostsFile path with a blank is one file (never split, never read from the current directory)"
mkdir -p "$T/cwd"
echo "$n1 $(pub ecdsa)" > "$T/cwd/kh"		# would make the host known if read
: > "$T/my kh"
h1cfg "UserKnownHostsFile \"$T/my kh\" $T/kh-second" "GlobalKnownHostsFile none" > "$T/cfg-quoted"
rc=0; (cd "$T/cwd" && ORCH_KNOWN_HOSTS= run_orch "$T/c15" check --inventory="$T/empty.ini" --ssh-config="$T/cfg-quoted" --hosts=h1 --accept-new-host-keys) || rc=$?
cat "$T/c15"
expect_eq "quoted path exit" "$rc" 0
expect_grep '^h1 +yes +added' "$T/c15"
grep -qF "$n1 $(pub ecdsa)" "$T/my kh" || fail "the new key did not go to the first file, '$T/my kh'"
[ ! -e "$T/my" ] && [ ! -e "$T/kh-second" ] || fail "the list was split, or the second file written"
(cd "$T/cwd" && ORCH_KNOWN_HOSTS= run_orch "$T/c16" check --inventory="$T/empty.ini" --ssh-config="$T/cfg-quoted" --hosts=h1) || true
expect_grep '^h1 +yes +known +ok ' "$T/c16"
note "the same path unquoted, where the joined path is a file: refused, quote it"
h1cfg "UserKnownHostsFile $T/my kh" > "$T/cfg-unquoted"
rc=0; (cd "$T/cwd" && ORCH_KNOWN_HOSTS= run_orch "$T/c17" check --inventory="$T/empty.ini" --ssh-config="$T/cfg-unquoted" --hosts=h1) || rc=$?
cat "$T/c17"
expect_eq "unquoted path exit" "$rc" 2
grep -qF "$T/cfg-unquoted:7: UserKnownHostsFile: '$T/my kh' names a file, but unquoted it is read as 2 paths; quote it" "$T/c17" || fail "no quote-it refusal naming the line"

note "a new host is still added with --accept-new-host-keys"
: > "$T/kh-new"
check_h1 "$T/c9" "$T/kh-new" --accept-new-host-keys || true
expect_grep '^h1 +yes +added' "$T/c9"
grep -qF "$n1 $(pub ecdsa)" "$T/kh-new" || fail "the new key was not added as a known_hosts line"
check_h1 "$T/c10" "$T/kh-new" || true
expect_grep '^h1 +yes +known +ok ' "$T/c10"
echo "t-hostkeys: ok"
