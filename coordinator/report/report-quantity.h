/*
 * The compared quantity of a benchmark whose primary metric is wall_ns:
 * the wall time, and whether the host's harness floor is subtracted from
 * it, named on the terminal and in report.md (docs/statistics.md).
 */
#ifndef COORDINATOR_REPORT_QUANTITY_H
#define COORDINATOR_REPORT_QUANTITY_H

#include <stddef.h>
#include <stdio.h>

struct analysis;

/*
 * Writes host i's (an index into a->hosts) quantity into buf, e.g. "wall
 * time, harness floor 0.738 ms not subtracted".
 */
void	report_quantity(const struct analysis *a, size_t i, char *buf,
	    size_t len);

/*
 * Writes one line "PREFIXcompared on HOST: QUANTITY" per host when some
 * benchmark's primary metric is wall_ns, nothing otherwise. md: the host
 * name escaped for Markdown. Returns the number of lines written.
 */
size_t	report_quantity_lines(FILE *f, const struct analysis *a,
	    const char *prefix, int md);

#endif
