/* `orch-agent serve`: one run's worth of work for one coordinator. */
#ifndef AGENT_SERVE_H
#define AGENT_SERVE_H

struct serve_opts {
	const char	*workdir;	/* WORKDIR; created when missing */
	const char	*bind;		/* TCP address to bind; NULL: a Unix
					   socket in the workdir */
	int		 key_timeout_ms;	/* wait for the key line
						   this long */
	int		 hello_timeout_ms;	/* and for the coordinator's
						   hello */
	const char	*self;		/* argv[0]: orch-null sits beside it */
};

/*
 * Reads the key line from stdin, binds, prints the endpoint on stdout and
 * serves one coordinator until BYE, until stdin closes or on a fatal
 * protocol error. Returns the process exit code.
 */
int	serve_main(const struct serve_opts *opts);

/*
 * orch-agent status / stop: prints one line about run_id's agent on this
 * host ("running pid N journal K (...)", "not-running journal K",
 * "stopped pid N journal K"; K is -1 without a journal); stop sends it
 * SIGTERM and waits for it. Returns the exit code.
 */
int	serve_ctl(const char *workdir, const char *run_id, int stop);

#endif
