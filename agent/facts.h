/*
 * What depends on the operating system sits behind two interfaces: this
 * one (facts-linux.c, facts-darwin.c) and agent/proc.h (proc-linux.c,
 * proc-darwin.c); nothing else in the agent may use OS-specific APIs.
 */
#ifndef AGENT_FACTS_H
#define AGENT_FACTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/resource.h>

#include "proto/proto.h"

/*
 * Fills f with this machine's facts: os, arch (normalized to x86_64 or
 * aarch64), cpu_model, kernel release, hostname, cores online, memory, load
 * averages, and extra facts that matter for benchmarks. Does not touch
 * f->workdir. Fields that cannot be read are left empty or zero. Returns 0.
 */
int	facts_collect(struct proto_facts *f);

/*
 * Fills hex with the SHA-256 of this machine's stable identity (Linux:
 * /etc/machine-id, else /var/lib/dbus/machine-id, else the boot id; macOS:
 * the platform UUID, kern.uuid), never the identity itself; "" when none
 * can be read. Two agents of one machine give the same.
 */
void	facts_machine(char hex[PROTO_SHA_HEX]);

/*
 * Hashes what identifies a machine: source names where id came from
 * ("machine-id", "boot-id", ...). Fills hex; "" when id is empty.
 */
void	facts_machine_hash(const char *source, const char *id,
	    char hex[PROTO_SHA_HEX]);

/* Copies src into dst (len bytes), truncating, always NUL-terminated. */
void	facts_copy(char *dst, size_t len, const char *src);

/* Adds key=value to f's extra facts, if there is room. */
void	facts_extra(struct proto_facts *f, const char *key,
	    const char *value);

/* Returns the 1-minute load average, or -1 when it cannot be read. */
double	facts_load1(void);

/* Returns the number of logical CPUs online (at least 1). */
uint32_t facts_cores(void);

/*
 * Returns the number of CPUs this process may run on now (at least 1):
 * its affinity where the system has one (taskset, a pin), else
 * facts_cores().
 */
uint32_t facts_cpus_usable(void);

/* Converts ru_maxrss to KiB (Linux reports KiB, macOS bytes). */
uint64_t facts_maxrss_kb(const struct rusage *ru);

/*
 * Restricts the calling process (and so the children it spawns after) to
 * the CPUs in list ("2,3", "0-3,8"); list NULL or "" restores all CPUs that
 * the process had at its first call. Returns 0, or -1 with a reason in err
 * (on macOS, which has no affinity, always -1 with "not supported").
 */
int	facts_pin(const char *list, char *err, size_t errlen);

#define FACTS_COUNTERS_MAX	8

/* Performance counters that the next spawned program inherits. */
struct facts_counters {
	int	n;
	int	fd[FACTS_COUNTERS_MAX];
	char	name[FACTS_COUNTERS_MAX][PROTO_NAME_MAX];
	uint64_t value[FACTS_COUNTERS_MAX];	/* macOS: read before
						   the reap */
	int	taken;			/* macOS: value[] holds the child's */
};

/*
 * Opens the counters named in list ("instructions, cycles,
 * context-switches, task-clock", comma separated) on this process,
 * disabled, inherited by children and enabled when a child execs: they
 * count the benchmark and its children, never the agent. Counters the
 * kernel refuses are skipped, with its reasons in err ("" when none).
 * Returns the number opened (0 for an empty list), or -1 for an unknown
 * name, with none left open (on macOS, -1 for any non-empty list).
 */
int	facts_counters_open(struct facts_counters *c, const char *list,
	    char *err, size_t errlen);

/*
 * Called when the child pid may have exited, before it is reaped: where
 * counters are read per process rather than inherited (macOS), takes the
 * exited child's values. Does nothing for a child still running, or on
 * Linux.
 */
void	facts_counters_child(struct facts_counters *c, pid_t pid);

/*
 * Adds each counter's value to s's metrics (when s is not NULL; read after
 * the child was reaped) and closes them.
 */
void	facts_counters_close(struct facts_counters *c, struct proto_sample *s);

#endif
