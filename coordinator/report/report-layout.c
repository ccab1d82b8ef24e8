/*
 * The layout-sensitivity lines: on the terminal, in report.md and
 * report.html, and summary.json's "layout" (docs/output.md).
 */
#include <stdio.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/analysis/layout.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/json.h"
#include "coordinator/report/report-layout.h"
#include "coordinator/report/report-text.h"

/* How a line's text from the record is written. */
enum rl_kind {
	RL_TERM,
	RL_MD,
	RL_HTML
};

/* Writes s as the terminal's text, report.md's or report.html's. */
static void
rl_text(FILE *f, const char *s, enum rl_kind k)
{
	if (k == RL_MD)
		report_md_text(f, s);
	else if (k == RL_HTML)
		report_html_esc(f, s);
	else
		tty_write(f, s);
}

/* Writes test t's line, without its list marker or end. */
static void
rl_line(FILE *f, const struct dataset *ds, const struct layout_test *t,
    enum rl_kind k)
{
	rl_text(f, ds->hosts[t->host].name, k);
	fputc(' ', f);
	rl_text(f, ds->benches[t->bench].name, k);
	fputc(' ', f);
	rl_text(f, ds->variants[t->variant], k);
	fputs(": layout-sensitive: ", f);
	rl_text(f, ds->benches[t->bench].metrics[0], k);
	fprintf(f, " moves with the environment's size (rho %.2f, ", t->rho);
	if (t->p < 0.0001)
		fputs("p < 0.0001", f);
	else
		fprintf(f, "p %.2g", t->p);
	fprintf(f, ", %zu runs)", t->n);
}

/* Writes the lines of kind k; nothing when none is sensitive. */
static int
rl_write(FILE *f, const struct analysis *a, enum rl_kind k)
{
	const struct layout_test	*t;
	struct layout			*l;
	size_t				 i, n = 0;

	if (layout_build(a, &l) != 0)
		return (-1);
	for (i = 0; i < l->ntests; i++) {
		t = &l->tests[i];
		if (!t->sensitive)
			continue;
		if (n++ == 0 && k != RL_TERM)
			fprintf(f, "%sMemory layout: the primary metric moves "
			    "with the size of the environment (its padding, "
			    "%senv_pad%s), rank correlation at %.2g over %zu "
			    "tests:%s", k == RL_HTML ? "<section id=\"layout\">"
			    "\n<p>" : "", k == RL_HTML ? "<code>" : "`",
			    k == RL_HTML ? "</code>" : "`", l->alpha,
			    l->ntests, k == RL_HTML ? "</p>\n<ul>\n" : "\n\n");
		fputs(k == RL_MD ? "- " : k == RL_HTML ? "<li>" : "", f);
		rl_line(f, a->ds, t, k);
		fputs(k == RL_HTML ? "</li>\n" : "\n", f);
	}
	if (n > 0 && k != RL_TERM)
		fputs(k == RL_HTML ? "</ul>\n</section>\n" : "\n", f);
	layout_free(l);
	return (0);
}

int
report_layout(FILE *f, const struct analysis *a, int md)
{
	return (rl_write(f, a, md ? RL_MD : RL_TERM));
}

int
report_layout_html(FILE *f, const struct analysis *a)
{
	return (rl_write(f, a, RL_HTML));
}

int
report_layout_json(FILE *f, const struct analysis *a)
{
	const struct dataset		*ds = a->ds;
	const struct layout_test	*t;
	struct layout			*l;
	size_t				 i, n = 0;

	if (layout_build(a, &l) != 0)
		return (-1);
	fputs("  \"layout\": {\"alpha\": ", f);
	json_num(f, l->alpha);
	fprintf(f, ", \"tests\": %zu, \"sensitive\": [", l->ntests);
	for (i = 0; i < l->ntests; i++) {
		t = &l->tests[i];
		if (!t->sensitive)
			continue;
		fputs(n++ ? ",\n    {\"host\": " : "\n    {\"host\": ", f);
		json_str(f, ds->hosts[t->host].name);
		fputs(", \"bench\": ", f);
		json_str(f, ds->benches[t->bench].name);
		fputs(", \"variant\": ", f);
		json_str(f, ds->variants[t->variant]);
		fputs(", \"metric\": ", f);
		json_str(f, ds->benches[t->bench].metrics[0]);
		fputs(", \"rho\": ", f);
		json_num(f, t->rho);
		fputs(", \"p_value\": ", f);
		json_num(f, t->p);
		fprintf(f, ", \"n\": %zu}", t->n);
	}
	fputs(n ? "\n  ]},\n" : "]},\n", f);
	layout_free(l);
	return (0);
}
