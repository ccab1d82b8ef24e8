/*
 * Running one benchmark program: posix_spawn of an argv (never a shell) in
 * its own process group, output captured with a bound, a deadline that kills
 * the whole group, and the measurements wait4() gives.
 */
#ifndef AGENT_EXEC_H
#define AGENT_EXEC_H

#include <stdint.h>

#include "agent/proc.h"
#include "proto/proto.h"

struct exec_req {
	char *const	*argv;		/* argv[0]: the program's path */
	const char	*path;		/* what to execute; NULL: argv[0] */
	char *const	*envp;		/* the whole environment */
	const char	*cwd;		/* NULL: the agent's */
	uint32_t	 timeout_ms;	/* 0: no deadline */
	const char	*checksum_key;	/* NULL or "": none;
					   PROTO_CHECKSUM_STDOUT: the SHA-256 of
					   all of stdout */
	char *const	*mkeys;		/* the metric keys stdout may give */
	size_t		 nmkeys;
	char		*firstline;	/* NULL, or gets stdout's first line */
	size_t		 firstline_len;	/* its size, NUL included */
	const char	*pin;		/* CPU list ("2,3", "0-3") or NULL */
	int		 lifeline_fd;	/* -1, or an fd whose EOF or hangup
					   aborts the run */
	const char	*counters;	/* counters to read as metrics,
					   or NULL */
	/*
	 * told the child's pid (its process group) once started, and when it
	 * was born; called at once, before the agent sleeps
	 */
	void		(*spawned)(long pid, const struct proc_born *born,
			    void *arg);
	void		*spawned_arg;
};

/*
 * Installs the SIGCHLD handler the module needs. Call once, before any
 * exec_run(). Returns 0 or -1 with errno set.
 */
int	exec_init(void);

/*
 * Runs req to completion and fills the measurement fields of out: status,
 * exit_code, signal, wall_ns, user_ns, sys_ns, maxrss_kb (KiB on every OS),
 * nvcsw, nivcsw, metrics (from the program's `key=value` stdout lines),
 * checksum and err_tail (stderr tail; or why it could not start). Other
 * fields of out are left alone. A program that cannot be started is a
 * PROTO_ST_FAILED sample, not an error.
 *
 * Returns 0 when the run ended (whatever its status), or -1 when the
 * lifeline closed: the process group was killed and out is not a sample.
 * Leaves no child process behind in either case.
 */
int	exec_run(const struct exec_req *req, struct proto_sample *out);

#endif
