/*
 * The report's Machines section: the hosts themselves side by side. Each
 * host's typical value of every benchmark and variant relative to a
 * reference host (a Hodges–Lehmann shift of log values with its
 * Mann–Whitney interval: unpaired, for the hosts ran different hardware at
 * the same time), a geometric mean per host, where the time goes
 * (instructions × CPI ÷ clock) when counters were recorded, and a per-core
 * view of the benchmarks that declare their threads. docs/report.md says
 * how to read it; coordinator/report/report-machines.h writes it.
 */
#ifndef COORDINATOR_MACHINES_H
#define COORDINATOR_MACHINES_H

#include <stddef.h>

#include "coordinator/analysis/analysis.h"

#define MACH_LEVEL	0.95	/* of every interval of the section */

/* One host, benchmark and variant against the reference host. */
struct mach_cell {
	size_t		 host, bench, variant;	/* dataset indices */
	size_t		 n;		/* good runs of the primary metric */
	double		 typical;	/* their median */
	size_t		 ref_n;		/* the reference host's, likewise */
	double		 ref_typical;
	double		 ratio, lo, hi;	/* host / reference; NAN: none */
	char		 reason[96];	/* why there is no ratio */

	/* Where the time goes: typical values, NAN when not recorded. */
	const char	*time_metric;	/* the primary, or wall_ns */
	double		 time, instr, cycles;
	double		 ipc;		/* instr / cycles */
	double		 ghz;		/* cycles per ns of time */
	double		 ref_time, ref_instr, ref_cycles, ref_ipc, ref_ghz;
	/* The split; time = instr × cpi ÷ clock. NAN when not known. */
	double		 r_time, r_instr, r_cycles, r_cpi, r_clock;

	/*
	 * Per core: cores busy (0 serial or not said) and the ratio per core.
	 */
	double		 cores, ref_cores;
	double		 pc_ratio, pc_lo, pc_hi;
};

/* The geometric mean of one host's ratios over the benchmarks. */
struct mach_geo {
	size_t		 host, variant;
	size_t		 nused;		/* benchmarks with an interval */
	double		 est, lo, hi;	/* time-like: > 1 the host is slower */
};

/* A fact whose value is not the same on every host. */
struct mach_fact {
	const char	*name;		/* "cpu_model", "cores",
					   "governor", … */
	char		**value;	/* per host of mach.hosts */
};

struct machines {
	const struct analysis	*a;
	size_t			 ref;		/* reference host
						   (dataset index) */
	int			 ref_given;	/* named by
						   --machine-reference */
	size_t			 nhosts;	/* hosts with facts,
						   record order */
	size_t			*hosts;		/* dataset indices;
						   [0] is ref */
	int			*emulated;	/* per host of hosts */
	size_t			 ncells;	/* per bench, variant,
						   other host */
	struct mach_cell	*cells;
	size_t			 ngeos;		/* per other host and variant */
	struct mach_geo		*geos;
	size_t			 nfacts;
	struct mach_fact	*facts;
	uint32_t		*threads;	/* per bench:
						   SUITE_THREADS_* or 0 */
	int			 counters;	/* a cell has the split */
	int			*split;		/* per bench: a cell has it */
	int			 parallel;	/* a bench declared
						   its threads */
};

/*
 * Sets the reference host for every report this process writes, from
 * --machine-reference=HOST. Returns 0, or -1 with a message on stderr
 * when HOST is not a host name.
 */
int	machines_opt(const char *host);

/*
 * Checks the reference host against the n hosts of a run about to start;
 * returns 0, or -1 with a message on stderr naming it.
 */
struct host;
int	machines_opt_check(const struct host *hosts, size_t n);

/*
 * Checks the reference host given on the command line against the hosts
 * of ds. Returns 0, or -1 with *cause set (caller frees).
 */
int	machines_check(const struct dataset *ds, char **cause);

/*
 * Compares the hosts of a. *out is NULL when fewer than two hosts gave
 * facts. Returns 0, or -1 out of memory.
 */
int	machines_build(const struct analysis *a, struct machines **out);
void	machines_free(struct machines *m);

/*
 * The Machines section of a, built by machines_build the first time any
 * report asks and kept with a (freed by analysis_free): each of
 * report.md, report.html and summary.json shows it, and on a million
 * samples building it was a fifth of orch report's time. Returns what
 * machines_build returned; *out is NULL for fewer than two hosts.
 */
int	machines_get(const struct analysis *a, const struct machines **out);

/* Returns 1 when host h's facts say its programs ran under emulation. */
int	machines_emulated(const struct proto_facts *f);

#endif
