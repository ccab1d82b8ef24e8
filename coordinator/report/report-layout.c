/* The layout-sensitivity lines of report.md and the terminal. */
#include <stdio.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/layout.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/report-layout.h"
#include "coordinator/report/report-text.h"

/* Writes s as report.md's text (md) or the terminal's. */
static void
rl_text(FILE *f, const char *s, int md)
{
	if (md)
		report_md_text(f, s);
	else
		tty_write(f, s);
}

int
report_layout(FILE *f, const struct analysis *a, int md)
{
	const struct dataset		*ds = a->ds;
	const struct layout_test	*t;
	struct layout			*l;
	size_t				 i, n = 0;

	if (layout_build(a, &l) != 0)
		return (-1);
	for (i = 0; i < l->ntests; i++) {
		t = &l->tests[i];
		if (!t->sensitive)
			continue;
		if (md && n++ == 0)
			fprintf(f, "Memory layout: the primary metric moves "
			    "with the size of the environment (its padding, "
			    "`env_pad`), rank correlation at %.2g over %zu "
			    "tests:\n\n", l->alpha, l->ntests);
		fputs(md ? "- " : "", f);
		rl_text(f, ds->hosts[t->host].name, md);
		fputc(' ', f);
		rl_text(f, ds->benches[t->bench].name, md);
		fputc(' ', f);
		rl_text(f, ds->variants[t->variant], md);
		fputs(": layout-sensitive: ", f);
		rl_text(f, ds->benches[t->bench].metrics[0], md);
		fprintf(f, " moves with the environment's size (rho %.2f, ",
		    t->rho);
		if (t->p < 0.0001)
			fputs("p < 0.0001", f);
		else
			fprintf(f, "p %.2g", t->p);
		fprintf(f, ", %zu runs)\n", t->n);
	}
	if (md && n > 0)
		fputc('\n', f);
	layout_free(l);
	return (0);
}
