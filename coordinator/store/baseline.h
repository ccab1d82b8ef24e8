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

/*
 * orch baseline set NAME DIR: points NAME at the run in DIR (its record
 * must load), replacing any baseline of that name in one rename, and says
 * so. Returns the exit code: 0, or 2 with the error said.
 */
int	baseline_set(const char *name, const char *dir);

/* orch baseline list: each baseline and its run directory, by name. */
int	baseline_list(void);

/* orch baseline rm NAME: removes it. Returns 0, or 2 with the error said. */
int	baseline_rm(const char *name);

#endif
