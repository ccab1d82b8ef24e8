/*
 * Baselines: names for run directories, kept under reports/baselines/ as
 * symbolic links (docs/evidence.md), for orch compare NAME DIR.
 */
#ifndef COORDINATOR_BASELINE_H
#define COORDINATOR_BASELINE_H

#include <stddef.h>

#define BASELINE_DIR	"reports/baselines"

/*
 * Resolves a baseline name into the run directory it points at (caller
 * frees). Returns 0, 1 when name is no baseline, or -1 with *cause set.
 */
int	baseline_resolve(const char *name, char **dir, char **cause);

/* orch baseline set|list|rm ...: returns the exit code. */
int	cmd_baseline(int argc, char **argv);

#endif
