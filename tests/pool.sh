# pool.sh — runs jobs a few at a time; sourced by run-e2e.sh and
# run-fuzz.sh, never run.
#
#   pool_init E2E_JOBS || exit 2   # POOL_JOBS from that variable, or 2
#                                  # where the machine has 2 cores or more
#   pool_done() { ...; }           # the caller's: called with a job's key
#                                  # when the job has ended
#   pool_start KEY CMD...          # runs CMD in the background once a
#                                  # slot is free
#   pool_wait                      # until every job has ended
#
# A job leaves what it has to say (its exit code, its log) in files of its
# own: pool_done reads them.
POOL_JOBS=1
declare -A _pool_key=()

pool_init() {
	local cores v
	cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
	v=${!1:-$([ "$cores" -ge 2 ] && echo 2 || echo 1)}
	case "$v" in
	''|*[!0-9]*|0) echo "$1 must be a number above 0, not '$v'" >&2; return 1 ;;
	esac
	POOL_JOBS=$v
}

# _pool_reap: waits for one job to end and hands its key to pool_done.
_pool_reap() {
	local pid key
	wait -n -p pid || true
	[ -n "${pid:-}" ] || return 0
	key=${_pool_key[$pid]:-}
	[ -n "$key" ] || return 0
	unset "_pool_key[$pid]"
	pool_done "$key"
}

pool_start() {
	local key=$1
	shift
	while [ ${#_pool_key[@]} -ge "$POOL_JOBS" ]; do _pool_reap; done
	"$@" &
	_pool_key[$!]=$key
}

pool_wait() {
	while [ ${#_pool_key[@]} -gt 0 ]; do _pool_reap; done
}
