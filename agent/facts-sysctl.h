/*
 * macOS facts and counters from the answers of sysctlbyname() and
 * proc_pid_rusage(), without making either call: facts-darwin.c passes the
 * real calls, the unit tests answers recorded on an M2. Plain C, built on
 * every OS, so that what the agent makes of a Mac's answers is tested here.
 */
#ifndef AGENT_FACTS_SYSCTL_H
#define AGENT_FACTS_SYSCTL_H

#include <stddef.h>
#include <stdint.h>

#include "agent/facts.h"
#include "proto/proto.h"

/*
 * sysctlbyname(name, buf, len, NULL, 0) in the shape the parsers call it:
 * fills buf (at most *len bytes) and sets *len to the bytes written;
 * returns 0, or -1 when the sysctl does not exist or does not fit.
 */
typedef int (*facts_sysctl_fn)(const char *name, void *buf, size_t *len);

/* Reads a string sysctl into buf; returns 0, or -1 when absent or empty. */
int	facts_sysctl_str(facts_sysctl_fn fn, const char *name, char *buf,
	    size_t len);

/*
 * Reads an integer sysctl, accepted at 4 or 8 bytes: byte counts and
 * frequencies are 64-bit, the rest 32-bit (xnu's sys/sysctl.h). Returns 0,
 * or -1 when absent or of another size.
 */
int	facts_sysctl_u64(facts_sysctl_fn fn, const char *name, uint64_t *v);

/*
 * Fills f's cpu_model (machdep.cpu.brand_string, e.g. "Apple M2"), kernel
 * (kern.osrelease), mem_kb (hw.memsize) and the extra facts (model, macos,
 * perf_cores, efficiency_cores, smt, cpu_max_mhz, aslr, vm, rosetta) from
 * sysctl answers. A missing sysctl leaves its fact as it was (cpu_model,
 * kernel) or out (mem_kb 0, no extra). Resets f->nextra first.
 */
void	facts_sysctl_fill(struct proto_facts *f, facts_sysctl_fn fn);

/* Returns hw.logicalcpu, or 0 when absent or out of range. */
uint32_t facts_sysctl_cores(facts_sysctl_fn fn);

/*
 * struct rusage_info_v4 (xnu's sys/resource.h, proc_pid_rusage with
 * RUSAGE_INFO_V4): its size and where ri_instructions and ri_cycles sit.
 * facts-darwin.c checks these against Apple's header when it is compiled.
 */
#define FACTS_RI_V4_SIZE		296
#define FACTS_RI_V4_INSTRUCTIONS	248
#define FACTS_RI_V4_CYCLES		256

/*
 * Opens the counters named in list (the names of facts_counters_open) for
 * macOS, where proc_pid_rusage gives a process's instructions and cycles:
 * those two are kept, the other known ones skipped with the reason in err.
 * Returns the number kept, or -1 for an unknown name or too many.
 */
int	facts_rusage_open(struct facts_counters *c, const char *list,
	    char *err, size_t errlen);

/*
 * Takes ri_instructions and ri_cycles from a RUSAGE_INFO_V4 answer of len
 * bytes into c's values. Returns 0, or -1 when len is too short.
 */
int	facts_rusage_take(struct facts_counters *c, const void *ri,
	    size_t len);

/*
 * Adds each kept counter's value to s's metrics (when s is not NULL and a
 * value was taken), in the order named, and empties c.
 */
void	facts_rusage_close(struct facts_counters *c, struct proto_sample *s);

#endif
