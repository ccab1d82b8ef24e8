/*
 * The compared quantity (see report-quantity.h): a one-line run compares
 * wall time as it is (its suite says subtract_floor = no), a suite
 * subtracts the harness floor unless it says otherwise; the reader is
 * told which, with the floor's size.
 */
#include <stdio.h>
#include <string.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/report-quantity.h"
#include "coordinator/report/report-text.h"
#include "coordinator/store/dataset.h"

/* Returns 1 when some benchmark's primary metric is wall_ns, else 0. */
static int
rq_wall_primary(const struct dataset *ds)
{
	size_t	b;

	for (b = 0; b < ds->nbenches; b++) {
		if (ds->benches[b].nmetrics > 0 &&
		    strcmp(ds->benches[b].metrics[0], "wall_ns") == 0)
			return (1);
	}
	return (0);
}

void
report_quantity(const struct analysis *a, size_t i, char *buf, size_t len)
{
	const struct rep_host	*rh = &a->hosts[i];

	if (rh->hyg.floor.n == 0)
		snprintf(buf, len, "wall time, no harness floor measured");
	else
		snprintf(buf, len, "wall time, harness floor %.3g ms %s",
		    rh->hyg.floor.median / 1e6, rh->floor_sub > 0 ?
		    "subtracted" : "not subtracted");
}

size_t
report_quantity_lines(FILE *f, const struct analysis *a, const char *prefix,
    int md)
{
	char	q[128];
	size_t	i;

	if (!rq_wall_primary(a->ds))
		return (0);
	for (i = 0; i < a->nhosts; i++) {
		report_quantity(a, i, q, sizeof q);
		fprintf(f, "%scompared on ", prefix);
		if (md)
			report_md_text(f, a->ds->hosts[a->hosts[i].host].name);
		else
			tty_write(f, a->ds->hosts[a->hosts[i].host].name);
		fprintf(f, ": %s\n", q);
	}
	return (a->nhosts);
}
