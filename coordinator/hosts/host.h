/*
 * A host the coordinator runs benchmarks on. The session logic (handshake,
 * push, plan, samples) is shared; how the agent is started and how files
 * reach its cache are the backend's: host-local.c (a child process) and
 * host-ssh.c (an SSH session).
 */
#ifndef COORDINATOR_HOST_H
#define COORDINATOR_HOST_H

#include <sys/types.h>

#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/chan.h"
#include "proto/proto.h"

#define HOST_ERR_LEN	512

#define HOST_TRANSPORT_TUNNEL	0
#define HOST_TRANSPORT_DIRECT	1

struct host;
struct host_route;

/* What orch check learns of a host; each field "-" until known. */
struct host_probe {
	char	reach[64];	/* "yes", "no", "local" */
	char	hostkey[160];	/* "known", "added", "REFUSED", ... */
	char	auth[160];	/* "ok", "FAILED" */
	char	agent[64];	/* its version, "missing", "outdated" */
	char	disk[32];	/* free space in the workdir, "%.1f GiB" */
};

/*
 * A backend: everything a command does to a host goes through these, so
 * no caller needs to know which backend a host has.
 */
struct host_ops {
	const char	*kind;		/* "local", "ssh" */
	/*
	 * Starts an agent and hands it key_line on its stdin; on success
	 * writes the endpoint the coordinator should connect to.
	 */
	int	(*start)(struct host *, const char *key_line, char *endpoint,
		    size_t len, char *err, size_t errlen);
	/* Copies a local file into the agent's cache as cache/<sha>. */
	int	(*push)(struct host *, const char *path, const char *sha,
		    int executable, char *err, size_t errlen);
	/* Returns 1 while the agent process is alive, else 0. */
	int	(*alive)(struct host *);
	/*
	 * Ends the agent (closes its stdin, then waits, then kills) and
	 * frees priv.
	 */
	void	(*stop)(struct host *);
	/*
	 * orch deploy: makes sure the host runs this version's agent (force
	 * as deploy_agent()'s) and writes what was done to how. Returns 0, or
	 * -1 with words in err.
	 */
	int	(*deploy)(struct host *, int force, char *how, size_t howlen,
		    char *err, size_t errlen);
	/*
	 * orch check, before the session: fills what the backend learns from
	 * outside the agent (reach, host key, auth, agent, disk). Returns 0
	 * when a session may follow, or -1 with words in err.
	 */
	int	(*probe)(struct host *, struct host_probe *, char *err,
		    size_t errlen);
	/* orch check, after host_open: fills what the agent's facts tell. */
	void	(*probe_open)(struct host *, struct host_probe *);
	/*
	 * orch check: writes where orch deploy gets the agent for the host's
	 * os/arch (h->facts). Returns 0, or -1 when the backend deploys none.
	 */
	int	(*agent_source)(const struct host *, char *buf, size_t len);
	/*
	 * orch status / orch stop: runs the agent's verb ("status", "stop")
	 * for run_id on the host and writes the first line of its answer, or
	 * why there is none, to line.
	 */
	void	(*control)(struct host *, const char *verb, const char *run_id,
		    char *line, size_t len);
};

/* Host status, as summary.json names it. */
#define HOST_OK		0
#define HOST_FAILED	1

struct host;

/* Called with the host programs its agent resolved (PROGS). */
typedef void (*host_progs_cb)(struct host *, const struct proto_progs *,
    void *arg);

struct host {
	char		 name[64];
	const struct host_ops *ops;
	void		*priv;		/* backend state */

	/* From the inventory (or the built-in defaults for local). */
	char		 address[256];
	int		 port;
	char		 user[64];
	char		 identity[512];
	int		 transport;	/* HOST_TRANSPORT_* */
	char		 workdir[512];	/* as configured; "" default */
	char		 pin[128];
	double		 max_load;	/* < 0: the suite's */
	int		 line;		/* of its inventory section, 0
					   built-in */
	char		 logpath[1024];	/* the agent's stderr goes here */
	int		 verbose;	/* run the agent with -v */
	int		 no_deploy;	/* refuse rather than install the
					   agent */
	int		 agent_stale;	/* refused: no agent, or an outdated
					   one */
	struct host_route *route;	/* SSH hosts: ssh_config's settings
					   and jump hosts (host-route.h);
					   NULL for local */

	/* Session. */
	char		 run_id[64];	/* of the session, once opened */
	struct chan	 chan;
	atomic_int	 connected;	/* the SSH relay thread reads it */
	char		 agent_version[32];
	struct proto_facts facts;

	/* Outcome. */
	uint64_t	 pushed;	/* bytes pushed to its cache this run */
	uint32_t	 npushed;	/* files pushed */
	int		 status;	/* HOST_* */
	int		 retryable;	/* the agent was lost, not refused */
	char		 errcode[32];	/* the agent's ERROR code, "" none */
	int		 detach;	/* close leaves the agent measuring */
	char		 error[HOST_ERR_LEN];
	host_progs_cb	 progs_cb;	/* NULL, or told of PROGS in host_run */
};

/* Called for every sample as it arrives; returns 0, or -1 to abort. */
typedef int (*host_sample_cb)(struct host *, const struct proto_sample *,
    void *arg);

/* Called for every STATUS message (waiting for the load, notes). */
typedef void (*host_state_cb)(struct host *, const struct proto_state *,
    void *arg);

/* Sets the orch-agent program the local backend starts. */
void	host_local_set_agent(const char *path);

/* Returns the orch-agent program the local backend starts. */
const char *host_local_agent(void);

/*
 * Starts the agent with a fresh session key (one per host: hosts never
 * share a key, so no nonce repeats), connects, and exchanges HELLO
 * (checking versions).
 * On success h->facts holds the agent's facts. Returns 0, or -1 with the
 * reason in h->error.
 */
int	host_open(struct host *h, const char *run_id);

/*
 * Makes sure the agent's cache holds each (path, sha) pair: asks which it
 * has (QUERY/HAVE) and pushes the rest. fresh[i] is set to 1 for each file
 * pushed now; *pushed counts bytes sent. Returns 0 or -1 (h->error).
 */
int	host_sync(struct host *h, size_t n, char *const *paths,
	    const char (*shas)[PROTO_SHA_HEX], const int *executable,
	    int *fresh, uint64_t *pushed);

/*
 * Sends the plan and receives its samples until DONE, calling cb for each.
 * Returns 0 when every step ran, or -1 with the reason in h->error (the
 * samples received so far have been passed to cb).
 */
int	host_run(struct host *h, const struct proto_plan *plan,
	    host_sample_cb cb, host_state_cb scb, void *arg,
	    atomic_int *stop);

/*
 * During host_run (from its callbacks): lets an open plan run its steps
 * [0, granted), or, final, ends it there. Returns 0 or -1.
 */
int	host_grant(struct host *h, uint32_t granted, int final);

/*
 * From host_run's callbacks: refuses what the agent sent (a sample outside
 * its plan, a flood). The host fails with the reason, made safe for a
 * terminal, and host_run returns -1 once the callback returns.
 */
void	host_refuse(struct host *h, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Says BYE and stops the agent; safe after any failure. */
void	host_close(struct host *h);

/*
 * Runs fn on each of n items (size bytes apart, one per host) at once, a
 * thread each, and returns when all have returned. An item whose thread
 * cannot start runs in the caller's thread instead: none is skipped.
 */
void	host_each(void *items, size_t n, size_t size, void *(*fn)(void *));

/* Lets the SSH backend add unknown host keys (never changed ones). */
void	host_ssh_accept_new(int on);

#endif
