/*
 * Slurm's command line (salloc, squeue, scontrol, scancel, sinfo), run by
 * argv with no shell, every call bounded by timeout(1) and a deadline of
 * our own; what they print is read as untrusted text (docs/inventory.md,
 * "Slurm"). With login = local the commands run here, with orch's
 * environment (SLURM_CONF passes through); with login = HOST they run on
 * that host over SSH (slurm-login.h), as `timeout -k 2 SECS CMD ...`
 * there, with its environment.
 */
#ifndef COORDINATOR_SLURM_H
#define COORDINATOR_SLURM_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "coordinator/hosts/inventory.h"

#define SLURM_OUT_MAX	65536	/* bytes kept of a command's output */

/*
 * One allocated node: a job of one node, or a component of a
 * heterogeneous job (id LEADER+K).
 */
struct slurm_job {
	char	id[32];		/* the job id, digits, or LEADER+K */
	char	leader[32];	/* the job scancel takes; "": id */
	uint32_t component;	/* K; 0 for a plain job */
	char	name[64];	/* its -J name */
	char	node[64];	/* the node Slurm gave it */
	char	partition[128];
};

/*
 * Makes a salloc under way revoke its request once *flag turns non-zero
 * (the run's stop signal: Ctrl-C while queued). NULL: never.
 */
void	slurm_stop_on(const atomic_int *flag);

/*
 * A field of `scontrol show -o` text: copies the value of key (the word
 * before '=' at the start of a blank-separated token) into out. Returns
 * 0, -1 when the key is missing, -2 when it appears twice (a value that
 * holds " key=" could otherwise spoof it), -3 when it does not fit.
 */
int	slurm_field(const char *text, const char *key, char *out, size_t len);

/*
 * True when s is 1 to len - 1 characters of A-Z a-z 0-9 _ . - (and those
 * of extra), not starting with '-': a Slurm name read back from Slurm.
 */
int	slurm_word_ok(const char *s, const char *extra, size_t len);

/*
 * Allocates one node for host (its inventory entry in node): salloc
 * --no-shell -p P -N1 --exclusive --mem=0 -J name --time, with account,
 * qos, comment (NULL: none), constraint, nodelist and args, bounded by
 * the cluster's wait (the queue) plus its timeout. Fills *job from
 * squeue. On failure cancels our jobs of that name and returns -1 with
 * *cause (caller frees) naming the host. Returns 0.
 */
int	slurm_alloc(const struct inventory_slurm_node *node, const char *host,
	    const char *name, const char *comment, struct slurm_job *job,
	    char **cause);

/*
 * As slurm_alloc, and *busy is set on failure when salloc queued the
 * request and gave up at its bound (the cluster's wait, as --immediate):
 * no node of the partition was free in that time.
 */
int	slurm_alloc_busy(const struct inventory_slurm_node *node,
	    const char *host, const char *name, const char *comment,
	    struct slurm_job *job, int *busy, char **cause);

/*
 * One job for nodes[nn] (hosts[nn] their names), of one cluster: a
 * heterogeneous job of one component a node (salloc ... : ...), or, for
 * nn = 1, a plain job as slurm_alloc's. Fills jobs[nn] (leader, LEADER+K
 * ids, each read back from squeue). On failure cancels our jobs of that
 * name and returns -1 with *cause; *refused is 1 when the cluster refused
 * a heterogeneous job (the caller may allocate a job per host instead).
 */
int	slurm_alloc_het(const struct inventory_slurm_node *nodes,
	    const char *const *hosts, size_t nn, const char *name,
	    const char *comment, struct slurm_job *jobs, int *refused,
	    char **cause);

/* True when salloc's error text says heterogeneous jobs are refused. */
int	slurm_het_refused(const char *err);

/*
 * Parses squeue's `%i|%N|%P|%T` output for job (its id set): every line
 * of an id (ID or ID+K), a node, a partition and a state, each a plain
 * word, and job's id on exactly one. Fills job->node, job->partition and
 * state[slen] from it. Returns 0, or -1 (nothing trusted). Cuts text.
 */
int	slurm_parse_job(char *text, struct slurm_job *job, char *state,
	    size_t slen);

/*
 * Reads job (its id set) back from squeue: it must be RUNNING; fills its
 * node and partition. Returns 0, or -1 with *cause naming the host and
 * the job ("its allocation ended" when Slurm no longer runs it).
 */
int	slurm_read_job(const struct inventory_slurm *c, const char *host,
	    struct slurm_job *job, char **cause);

/* True when s is an address to reach a node at: A-Z a-z 0-9 . - : only. */
int	slurm_addr_ok(const char *s, size_t len);

/*
 * From `scontrol show node -o` text: NodeName must be node, and the one
 * NodeAddr an address (slurm_addr_ok); copied to addr[len]. Returns 0 or
 * -1.
 */
int	slurm_parse_node_addr(const char *text, const char *node, char *addr,
	    size_t len);

/* What scontrol says of a node, beside the agent's own facts. */
struct slurm_node_facts {
	uint32_t	cpus;		/* CPUTot; 0 unknown */
	uint64_t	mem_mb;		/* RealMemory; 0 unknown */
	char		arch[32];	/* Arch; "" unknown */
	char		features[256];	/* AvailableFeatures; "" none */
};

/*
 * Reads the facts of scontrol show node -o text into *f: each field
 * present once and well-formed (digits; a plain word; features of
 * A-Z a-z 0-9 _ . - , and not "(null)"), else left unknown.
 */
void	slurm_parse_node_facts(const char *text, struct slurm_node_facts *f);

/*
 * Asks scontrol for node's NodeAddr, where SSH reaches it, and (f not
 * NULL) its facts. Returns 0, or -1 with *cause naming the host and the
 * node.
 */
int	slurm_node_addr(const struct inventory_slurm *c, const char *host,
	    const char *node, char *addr, size_t len,
	    struct slurm_node_facts *f, char **cause);

/*
 * The workdir of a Slurm host that names none: one per node, so that
 * nodes sharing a home directory never share a workdir.
 */
void	slurm_workdir(char *buf, size_t len, const char *node);

/*
 * Checks that job holds its node alone: it runs, scontrol shows
 * OverSubscribe=NO and its node, and squeue shows no other job on the
 * node. Returns 0, or -1 with *cause naming the host, the job, the node,
 * the word exclusive and the partition's OverSubscribe setting.
 */
int	slurm_verify_exclusive(const struct inventory_slurm *c,
	    const char *host, const struct slurm_job *job, char **cause);

/*
 * Cancels job and waits (at most the cluster's timeout) until Slurm no
 * longer lists it as pending, running or completing. Returns 0, or -1
 * with *cause.
 */
int	slurm_release(const struct inventory_slurm *c, const char *host,
	    const struct slurm_job *job, char **cause);

/*
 * orch check of a Slurm host: writes its partition's State and
 * OverSubscribe (scontrol show partition -o) and its nodes' states (sinfo
 * -N) to out[len]; *exclusive is 0 when OverSubscribe is FORCE (orch run
 * would refuse its nodes). Allocates nothing. Returns 0, or -1 with
 * *cause.
 */
int	slurm_check(const struct inventory_slurm_node *node, const char *host,
	    char *out, size_t len, int *exclusive, char **cause);

#endif
