# debian.sh — sourced by tests/lab/arm64.sh and tests/check-fresh.sh.
#
# debian_sources SUITE: prints the mirror lines for mmdebstrap: Debian's
# archive (and its updates and security suites) for SUITE, exactly as apt
# here reaches them ("deb URI SUITE main", one a line). Where apt here is
# not a Debian of that suite: the main archive. Returns 1 when apt knows
# the suite's updates or security archive but not the suite itself.
debian_sources() {
	local suite=$1 lines
	lines=$(apt-get indextargets --format '$(REPO_URI) $(CODENAME) $(TARGET_OF)' 2>/dev/null |
	    awk -v s="$suite" '$3 == "deb" && ($2 == s || $2 == s "-updates" || $2 == s "-security") {
		print "deb " $1 " " $2 " main" }' | sort -u)
	if [ -z "$lines" ]; then
		printf 'deb http://deb.debian.org/debian %s main\n' "$suite"
		return 0
	fi
	grep -q " $suite main\$" <<<"$lines" || return 1
	printf '%s\n' "$lines"
}
