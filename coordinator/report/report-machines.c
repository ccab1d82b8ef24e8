/*
 * The Machines section of report.md, report.html and summary.json, from
 * machines.c's numbers; the prose is written once through a report_fmt.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "coordinator/analysis/hygiene.h"
#include "coordinator/analysis/machines.h"
#include "coordinator/input/suite.h"
#include "coordinator/input/tty.h"
#include "coordinator/report/json.h"
#include "coordinator/report/report-machines.h"
#include "coordinator/report/report-text.h"

/* What differs between Markdown and HTML beyond report_fmt. */
struct mr_style {
	const char	*open, *close;		/* around the section */
	const char	*h3_open, *h3_close;
	int		 html;			/* draw forest plots */
};

static const struct mr_style mr_md = {
	"## Machines\n\n", "", "### ", "\n\n", 0
};
static const struct mr_style mr_html = {
	"<section id=\"machines\">\n<h2>Machines</h2>\n", "</section>\n",
	"<h3>", "</h3>\n", 1
};

/* Writes a table's opening and header; right[i]: a number column. */
static void
mr_head(FILE *f, const struct report_fmt *fmt, const char *const *titles,
    const int *right, size_t n)
{
	size_t	i;

	fputs(fmt->table_open, f);
	fputs(fmt->head_open, f);
	for (i = 0; i < n; i++) {
		fputs(fmt->th_open, f);
		fputs(titles[i], f);
		fputs(fmt->th_close, f);
	}
	fputs(fmt->head_close, f);
	fputs(fmt->rule_open, f);
	for (i = 0; i < n; i++)
		fputs(right[i] ? fmt->rule_right : fmt->rule_left, f);
	fputs(fmt->rule_close, f);
}

/* A text cell holding a name, as code. */
static void
mr_cell_name(FILE *f, const struct report_fmt *fmt, const char *s)
{
	fputs(fmt->cell_open, f);
	fputs(fmt->cell_code_open, f);
	fmt->name(f, s);
	fputs(fmt->cell_code_close, f);
	fputs(fmt->cell_close, f);
}

/* A number cell of orch's own text. */
static void
mr_cell_num(FILE *f, const struct report_fmt *fmt, const char *s)
{
	fputs(fmt->num_open, f);
	fmt->prose(f, s);
	fputs(fmt->cell_close, f);
}

/*
 * The number cells of n runs of a metric and their typical value ("—"
 * when there were none).
 */
static void
mr_cells_runs(FILE *f, const struct report_fmt *fmt, const char *metric,
    size_t n, double typical)
{
	char	buf[128];

	snprintf(buf, sizeof buf, "%zu", n);
	mr_cell_num(f, fmt, buf);
	if (n > 0)
		report_text_value(metric, typical, buf, sizeof buf);
	else
		snprintf(buf, sizeof buf, "—");
	mr_cell_num(f, fmt, buf);
}

/* Formats a ratio and its interval: "1.234 [1.100, 1.300]". */
static void
mr_ratio(double r, double lo, double hi, char *buf, size_t len)
{
	if (!isfinite(r))
		snprintf(buf, len, "—");
	else if (!isfinite(lo) || !isfinite(hi))
		snprintf(buf, len, "%.3f [—]", r);
	else
		snprintf(buf, len, "%.3f [%.3f, %.3f]", r, lo, hi);
}

/* Formats a count of instructions or cycles: "1.23e+09", or "—". */
static void
mr_count(double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%.3e", v);
	else
		snprintf(buf, len, "—");
}

/* Formats v with digits decimals, or "—" when it is not a number. */
static void
mr_num(int digits, double v, char *buf, size_t len)
{
	if (isfinite(v))
		snprintf(buf, len, "%.*f", digits, v);
	else
		snprintf(buf, len, "—");
}

/* The opening words: what is compared with what, and how. */
static void
mr_intro(FILE *f, const struct report_fmt *fmt, const struct machines *m)
{
	const struct dataset	*ds = m->a->ds;
	size_t			 i;

	fputs(fmt->para_open, f);
	fputs("The hosts side by side: each benchmark's primary metric on "
	    "every host relative to the reference host ", f);
	fputs(fmt->code_open, f);
	fmt->name(f, ds->hosts[m->ref].name);
	fputs(fmt->code_close, f);
	fputs(m->ref_given ? " (named by --machine-reference)" :
	    " (the run's first host; --machine-reference=HOST picks another)",
	    f);
	fputs(": ratio = host / reference, so for a time above 1 the host is "
	    "slower. ", f);
	fputs(fmt->bold_open, f);
	fputs("The machines are compared unpaired", f);
	fputs(fmt->bold_close, f);
	fputs(": different hardware measured at the same time, so no round "
	    "pairs one host's run with another's. Each ratio is exp of the "
	    "Hodges–Lehmann shift of the log values (the median of every "
	    "difference between a host's and the reference's) with its 95% "
	    "Mann–Whitney interval; the typical value is the median of the "
	    "good runs.", f);
	fputs(fmt->para_close, f);
	for (i = 0; i < m->nhosts; i++) {
		if (!m->emulated[i])
			continue;
		fputs(fmt->note_open, f);
		fputs(fmt->code_open, f);
		fmt->name(f, ds->hosts[m->hosts[i]].name);
		fputs(fmt->code_close, f);
		fputs(" is emulated: its ", f);
		fmt->text(f, ds->hosts[m->hosts[i]].facts.arch);
		fputs(" programs ran on a CPU that calls itself ", f);
		fputs(fmt->code_open, f);
		fmt->text(f, ds->hosts[m->hosts[i]].facts.cpu_model);
		fputs(fmt->code_close, f);
		fputs(", so its numbers measure the emulator, not a machine.",
		    f);
		fputs(fmt->note_close, f);
	}
}

/* Which facts differ between the hosts; what the record says of binaries. */
static void
mr_facts(FILE *f, const struct report_fmt *fmt, const struct machines *m)
{
	const struct dataset	*ds = m->a->ds;
	const char		*titles[PROTO_NAME_MAX], *sha, *sha0;
	int			 right[PROTO_NAME_MAX];
	size_t			 i, j, v, n;
	int			 same;

	if (m->nfacts == 0) {
		fputs(fmt->para_open, f);
		fputs("No recorded fact differs between the hosts.", f);
		fputs(fmt->para_close, f);
	} else {
		fputs(fmt->para_open, f);
		fputs("What differs between the hosts:", f);
		fputs(fmt->para_close, f);
		n = m->nhosts + 1 < PROTO_NAME_MAX ? m->nhosts + 1 :
		    PROTO_NAME_MAX;
		titles[0] = "fact";
		right[0] = 0;
		for (j = 1; j < n; j++) {
			titles[j] = ds->hosts[m->hosts[j - 1]].name;
			right[j] = 0;
		}
		mr_head(f, fmt, titles, right, n);
		for (i = 0; i < m->nfacts; i++) {
			fputs(fmt->row_open, f);
			fputs(fmt->cell_open, f);
			fputs(m->facts[i].name, f);
			fputs(fmt->cell_close, f);
			for (j = 0; j + 1 < n; j++) {
				fputs(fmt->cell_open, f);
				fmt->text(f, m->facts[i].value[j]);
				fputs(fmt->cell_close, f);
			}
			fputs(fmt->row_close, f);
		}
		fputs(fmt->table_close, f);
	}
	fputs(fmt->para_open, f);
	fputs("The compiler of the binaries is not in the record; their "
	    "SHA-256 are (under Run):", f);
	for (v = 0; v < ds->nvariants; v++) {
		sha0 = hygiene_bin_sha(ds, m->hosts[0], v);
		same = sha0 != NULL;
		for (j = 1; j < m->nhosts && same; j++) {
			sha = hygiene_bin_sha(ds, m->hosts[j], v);
			same = sha != NULL && strcmp(sha, sha0) == 0;
		}
		fputs(v ? "; " : " ", f);
		fputs(fmt->code_open, f);
		fmt->name(f, ds->variants[v]);
		fputs(fmt->code_close, f);
		fputs(same ? " ran the same file on every host" :
		    " ran different files", f);
	}
	fputs(".", f);
	fputs(fmt->para_close, f);
}

/* The ratio table: per bench and variant, the reference and each host. */
static void
mr_ratios(FILE *f, const struct report_fmt *fmt, const struct machines *m)
{
	static const char *const titles[] = {
		"benchmark", "variant", "host", "runs", "typical",
		"host / reference [95% CI]", "per core [95% CI]"
	};
	static const int	right[] = { 0, 0, 0, 1, 1, 1, 1 };
	const struct dataset	*ds = m->a->ds;
	const struct mach_cell	*c;
	char			 buf[128];
	size_t			 i;

	mr_head(f, fmt, (const char *const *)titles, right,
	    m->parallel ? 7 : 6);
	for (i = 0; i < m->ncells; i++) {
		c = &m->cells[i];
		if (i == 0 || m->cells[i - 1].bench != c->bench ||
		    m->cells[i - 1].variant != c->variant) {
			fputs(fmt->row_open, f);
			mr_cell_name(f, fmt, ds->benches[c->bench].name);
			mr_cell_name(f, fmt, ds->variants[c->variant]);
			mr_cell_name(f, fmt, ds->hosts[m->ref].name);
			mr_cells_runs(f, fmt, ds->benches[c->bench].metrics[0],
			    c->ref_n, c->ref_typical);
			mr_cell_num(f, fmt, "1 (reference)");
			if (m->parallel)
				mr_cell_num(f, fmt, c->ref_cores > 0 ?
				    "1" : "serial");
			fputs(fmt->row_close, f);
		}
		fputs(fmt->row_open, f);
		fputs(fmt->cell_open, f);
		fputs(fmt->cell_close, f);
		fputs(fmt->cell_open, f);
		fputs(fmt->cell_close, f);
		mr_cell_name(f, fmt, ds->hosts[c->host].name);
		mr_cells_runs(f, fmt, ds->benches[c->bench].metrics[0], c->n,
		    c->typical);
		mr_ratio(c->ratio, c->lo, c->hi, buf, sizeof buf);
		if (c->reason[0] != '\0' && isfinite(c->ratio))
			snprintf(buf + strlen(buf), sizeof buf - strlen(buf),
			    " (%s)", c->reason);
		else if (c->reason[0] != '\0')
			snprintf(buf, sizeof buf, "— (%s)", c->reason);
		mr_cell_num(f, fmt, buf);
		if (m->parallel) {
			if (c->cores > 0)
				mr_ratio(c->pc_ratio, c->pc_lo, c->pc_hi, buf,
				    sizeof buf);
			else
				snprintf(buf, sizeof buf, "serial");
			mr_cell_num(f, fmt, buf);
		}
		fputs(fmt->row_close, f);
	}
	fputs(fmt->table_close, f);
}

/* The geometric means per host and variant. */
static void
mr_geos(FILE *f, const struct report_fmt *fmt, const struct machines *m)
{
	static const char *const titles[] = {
		"host", "variant", "geometric mean [95% CI]", "benchmarks"
	};
	static const int	right[] = { 0, 0, 1, 1 };
	const struct dataset	*ds = m->a->ds;
	const struct mach_geo	*g;
	char			 buf[128];
	size_t			 i;

	fputs(fmt->para_open, f);
	fputs("Geometric mean per host over the benchmarks, time-like (a "
	    "higher-is-better metric enters inverted, so above 1 the host is "
	    "slower); its interval adds the benchmarks' log-scale variances, "
	    "read off their intervals.", f);
	fputs(fmt->para_close, f);
	mr_head(f, fmt, (const char *const *)titles, right, 4);
	for (i = 0; i < m->ngeos; i++) {
		g = &m->geos[i];
		fputs(fmt->row_open, f);
		mr_cell_name(f, fmt, ds->hosts[g->host].name);
		mr_cell_name(f, fmt, ds->variants[g->variant]);
		mr_ratio(g->est, g->lo, g->hi, buf, sizeof buf);
		mr_cell_num(f, fmt, buf);
		snprintf(buf, sizeof buf, "%zu of %zu", g->nused,
		    ds->nbenches);
		mr_cell_num(f, fmt, buf);
		fputs(fmt->row_close, f);
	}
	fputs(fmt->table_close, f);
}

/* One row of the split table. */
static void
mr_split_row(FILE *f, const struct report_fmt *fmt, const struct machines *m,
    const struct mach_cell *c, int ref)
{
	const struct dataset	*ds = m->a->ds;
	char			 buf[64];

	fputs(fmt->row_open, f);
	if (ref) {
		mr_cell_name(f, fmt, ds->benches[c->bench].name);
		mr_cell_name(f, fmt, ds->variants[c->variant]);
		mr_cell_name(f, fmt, ds->hosts[m->ref].name);
	} else {
		fputs(fmt->cell_open, f);
		fputs(fmt->cell_close, f);
		fputs(fmt->cell_open, f);
		fputs(fmt->cell_close, f);
		mr_cell_name(f, fmt, ds->hosts[c->host].name);
	}
	mr_count(ref ? c->ref_instr : c->instr, buf, sizeof buf);
	mr_cell_num(f, fmt, buf);
	mr_count(ref ? c->ref_cycles : c->cycles, buf, sizeof buf);
	mr_cell_num(f, fmt, buf);
	mr_num(2, ref ? c->ref_ipc : c->ipc, buf, sizeof buf);
	mr_cell_num(f, fmt, buf);
	mr_num(2, ref ? c->ref_ghz : c->ghz, buf, sizeof buf);
	mr_cell_num(f, fmt, buf);
	if (ref) {
		mr_cell_num(f, fmt, "1");
		mr_cell_num(f, fmt, "1");
		mr_cell_num(f, fmt, "1");
		mr_cell_num(f, fmt, "1");
	} else {
		mr_num(3, c->r_time, buf, sizeof buf);
		mr_cell_num(f, fmt, buf);
		mr_num(3, isfinite(c->r_cpi) ? c->r_instr : NAN, buf,
		    sizeof buf);
		mr_cell_num(f, fmt, buf);
		mr_num(3, c->r_cpi, buf, sizeof buf);
		mr_cell_num(f, fmt, buf);
		mr_num(3, c->r_clock, buf, sizeof buf);
		mr_cell_num(f, fmt, buf);
	}
	fputs(fmt->row_close, f);
}

/* Where the time goes: instructions, cycles, and the split of each ratio. */
static void
mr_split_table(FILE *f, const struct report_fmt *fmt,
    const struct machines *m)
{
	static const char *const titles[] = {
		"benchmark", "variant", "host", "instructions", "cycles", "IPC",
		"GHz", "time ratio", "= instructions", "× CPI", "÷ clock"
	};
	static const int	right[] = { 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1 };
	const struct mach_cell	*c;
	size_t			 i, b, n;

	if (!m->counters) {
		fputs(fmt->para_open, f);
		fputs("No host recorded instructions and cycles for a "
		    "benchmark on both sides: with ", f);
		fputs(fmt->code_open, f);
		fputs("counters = instructions, cycles", f);
		fputs(fmt->code_close, f);
		fputs(" in the suite's [suite] section (Linux perf_event, "
		    "macOS proc_pid_rusage) this part splits each ratio into "
		    "instructions, cycles per instruction and clock.", f);
		fputs(fmt->para_close, f);
		return;
	}
	fputs(fmt->para_open, f);
	fputs("Typical (median) instructions and cycles per run; IPC = "
	    "instructions ÷ cycles; GHz = cycles per nanosecond of the time "
	    "metric (the primary when it is a time, else wall_ns): the clock "
	    "the benchmark's own cycles ran at, summed over its threads. Each "
	    "time ratio splits as time = instructions × CPI ÷ clock, every "
	    "factor a host / reference ratio of typical values: more "
	    "instructions point at the compiler or the instruction set, a "
	    "higher CPI at the core, a lower clock at the frequency.", f);
	fputs(fmt->para_close, f);
	mr_head(f, fmt, (const char *const *)titles, right, 11);
	for (i = 0; i < m->ncells; i++) {
		c = &m->cells[i];
		/* Only the benchmarks some host has counters for. */
		if (!m->split[c->bench])
			continue;
		if (i == 0 || m->cells[i - 1].bench != c->bench ||
		    m->cells[i - 1].variant != c->variant)
			mr_split_row(f, fmt, m, c, 1);
		mr_split_row(f, fmt, m, c, 0);
	}
	fputs(fmt->table_close, f);
	fputs(fmt->para_open, f);
	fputs("Without counters on both sides a factor is —.", f);
	for (b = 0, n = 0; b < m->a->ds->nbenches; b++) {
		if (m->split[b])
			continue;
		fputs(n++ ? ", " : " No counters at all: ", f);
		fputs(fmt->code_open, f);
		fmt->name(f, m->a->ds->benches[b].name);
		fputs(fmt->code_close, f);
	}
	fputs(n > 0 ? "." : "", f);
	fputs(fmt->para_close, f);
}

/* Per core: what the per-core column means, or why there is none. */
static void
mr_cores(FILE *f, const struct report_fmt *fmt, const struct machines *m)
{
	const struct dataset	*ds = m->a->ds;
	size_t			 b, n = 0;

	fputs(fmt->para_open, f);
	if (!m->parallel) {
		fputs("Every benchmark is serial (none says threads or "
		    "parallel in its [bench.NAME]): the hosts' core counts "
		    "do not matter to these ratios.", f);
		fputs(fmt->para_close, f);
		return;
	}
	fputs("Per core: a benchmark that declares threads = N or parallel = "
	    "yes keeps N cores busy (at most the host's), or every core; its "
	    "per-core ratio divides that out (a time × cores, a rate ÷ "
	    "cores). Serial, so the core counts do not matter:", f);
	for (b = 0; b < ds->nbenches; b++) {
		if (m->threads[b] > 1)
			continue;
		fputs(n++ ? ", " : " ", f);
		fputs(fmt->code_open, f);
		fmt->name(f, ds->benches[b].name);
		fputs(fmt->code_close, f);
	}
	fputs(n == 0 ? " none." : ".", f);
	fputs(fmt->para_close, f);
}

/* ---- HTML: a forest plot per host ------------------------------------- */

#define MF_W	760	/* width */
#define MF_X0	250	/* the plot's left edge */
#define MF_X1	560	/* its right edge */
#define MF_TXT	572	/* the numbers */
#define MF_ROW	22
#define MF_TOP	28
#define MF_ONE	8	/* the index of 1 in mf_plot's ticks */

static double
mf_x(double r, double lo, double hi)
{
	const struct report_scale	sc = { lo, hi, MF_X0, MF_X1 };

	return (report_scale_x(&sc, r));
}

/* Writes name escaped for HTML (names are identifiers; text may not be). */
static void
mf_esc(FILE *f, const struct report_fmt *fmt, const char *s)
{
	fmt->text(f, s);
}

/*
 * Sets *plo and *phi to the range of host's ratios and intervals, padded
 * and around 1; returns the number of its rows.
 */
static size_t
mf_range(const struct machines *m, size_t host, double *plo, double *phi)
{
	const struct mach_cell	*c;
	const struct mach_geo	*g;
	double			 lo = 1, hi = 1, pad;
	size_t			 i, n = 0;

	for (i = 0; i < m->ncells; i++) {
		c = &m->cells[i];
		if (c->host != host)
			continue;
		n++;
		if (c->lo > 0 && c->lo < lo)
			lo = c->lo;
		if (c->hi > hi && isfinite(c->hi))
			hi = c->hi;
		if (c->ratio > 0 && c->ratio < lo)
			lo = c->ratio;
		if (c->ratio > hi && isfinite(c->ratio))
			hi = c->ratio;
	}
	for (i = 0; i < m->ngeos; i++) {
		g = &m->geos[i];
		if (g->host != host || g->nused == 0)
			continue;
		n++;
		if (g->lo < lo)
			lo = g->lo;
		if (g->hi > hi)
			hi = g->hi;
	}
	if (!(lo < 1))
		lo = 0.99;
	if (!(hi > 1))
		hi = 1.01;
	pad = (log(hi) - log(lo)) * 0.08;
	*plo = exp(log(lo) - pad);
	*phi = exp(log(hi) + pad);
	return (n);
}

/*
 * One row of a forest plot at height y on the scale lo..hi: its label,
 * the ratio r3[0] in [r3[1], r3[2]] as a dot and a line (a diamond for a
 * geometric mean, geo), and the numbers.
 */
static void
mf_row(FILE *f, const struct report_fmt *fmt, const char *label,
    const double *r3, int geo, double y, double lo, double hi)
{
	double	x, xl, xh;
	char	num[96];

	fprintf(f, "<text x=\"0\" y=\"%.1f\"%s>", y + 4,
	    geo ? " font-weight=\"600\"" : "");
	mf_esc(f, fmt, label);
	fputs("</text>", f);
	mr_ratio(r3[0], r3[1], r3[2], num, sizeof num);
	if (isfinite(r3[0])) {
		x = mf_x(r3[0], lo, hi);
		if (isfinite(r3[1]) && isfinite(r3[2])) {
			xl = mf_x(r3[1], lo, hi);
			xh = mf_x(r3[2], lo, hi);
		} else
			xl = xh = x;
		if (geo)
			fprintf(f, "<polygon points=\"%.1f,%.1f "
			    "%.1f,%.1f %.1f,%.1f %.1f,%.1f\" "
			    "fill=\"#0969da\"/>", xl - 3, y, x, y - 7,
			    xh + 3, y, x, y + 7);
		else
			fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" "
			    "x2=\"%.1f\" y2=\"%.1f\" stroke=\"#0969da\" "
			    "stroke-width=\"2.5\" "
			    "stroke-linecap=\"round\"/><circle "
			    "cx=\"%.1f\" cy=\"%.1f\" r=\"5\" "
			    "fill=\"#0969da\" stroke=\"#fff\" "
			    "stroke-width=\"1.5\"/>", xl, y, xh, y, x,
			    y);
	}
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"mono\">", MF_TXT,
	    y + 4);
	mf_esc(f, fmt, num);
	fputs("</text>\n", f);
}

/* One forest plot: host's ratios per bench and variant, then its means. */
static void
mf_plot(FILE *f, const struct report_fmt *fmt, const struct machines *m,
    size_t host)
{
	static const double	nice[] = { 0.1, 0.2, 0.25, 0.5, 0.75, 0.8,
	    0.9, 0.95, 1, 1.05, 1.1, 1.25, 1.5, 2, 3, 4, 5, 10, 20, 50, 100 };
	const struct dataset	*ds = m->a->ds;
	const struct mach_cell	*c;
	const struct mach_geo	*g;
	struct report_scale	 sc = { 1, 1, MF_X0, MF_X1 };
	double			 lo, hi, y;
	size_t			 i, n, k;
	char			 label[256];

	n = mf_range(m, host, &lo, &hi);
	y = MF_TOP + (double)n * MF_ROW + 8;
	fprintf(f, "<figure><svg class=\"machines\" width=\"%d\" "
	    "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" role=\"img\" "
	    "aria-label=\"", MF_W, y + 44, MF_W, y + 44);
	mf_esc(f, fmt, ds->hosts[host].name);
	fputs(" relative to ", f);
	mf_esc(f, fmt, ds->hosts[m->ref].name);
	fputs("\">\n", f);
	sc.lo = lo;
	sc.hi = hi;
	report_scale_axis(f, &sc, MF_TOP - 6, y);
	fprintf(f, "<text x=\"0\" y=\"16\" class=\"dim\">benchmark · "
	    "variant</text><text x=\"%d\" y=\"16\" class=\"dim\">host / "
	    "reference (log scale)</text><text x=\"%d\" y=\"16\" "
	    "class=\"dim\">ratio [95%% CI]</text>\n", MF_X0, MF_TXT);
	report_scale_ticks(f, &sc, nice, sizeof nice / sizeof nice[0],
	    MF_ONE, y);
	k = 0;
	for (i = 0; i < m->ncells + m->ngeos; i++) {
		double		 rr[3];
		int		 geo = i >= m->ncells;

		if (!geo) {
			c = &m->cells[i];
			if (c->host != host)
				continue;
			snprintf(label, sizeof label, "%s · %s%s",
			    ds->benches[c->bench].name,
			    ds->variants[c->variant],
			    ds->benches[c->bench].higher[0] ? " ↑" : "");
			rr[0] = c->ratio;
			rr[1] = c->lo;
			rr[2] = c->hi;
		} else {
			g = &m->geos[i - m->ncells];
			if (g->host != host || g->nused == 0)
				continue;
			snprintf(label, sizeof label, "geometric mean · %s",
			    ds->variants[g->variant]);
			rr[0] = g->est;
			rr[1] = g->lo;
			rr[2] = g->hi;
		}
		y = MF_TOP + (double)k * MF_ROW + MF_ROW / 2.0 + (geo ? 8 : 0);
		k++;
		mf_row(f, fmt, label, rr, geo, y, lo, hi);
	}
	fputs("</svg><figcaption>Each row: the host's typical value relative "
	    "to the reference host (dot: exp of the Hodges–Lehmann shift of "
	    "log values) and its 95% Mann–Whitney interval (line), unpaired; "
	    "diamonds: the geometric means (time-like). ↑ marks a "
	    "higher-is-better metric.</figcaption></figure>\n", f);
}

/* ---- the section -------------------------------------------------------- */

static int
mr_section(FILE *f, const struct analysis *a, const struct report_fmt *fmt,
    const struct mr_style *st)
{
	const struct dataset	*ds = a->ds;
	const struct machines	*m;
	size_t			 j;

	if (machines_get(a, &m) != 0)
		return (-1);
	if (m == NULL)
		return (0);	/* one host: nothing to put side by side */
	fputs(st->open, f);
	mr_intro(f, fmt, m);
	mr_facts(f, fmt, m);
	mr_ratios(f, fmt, m);
	mr_geos(f, fmt, m);
	if (st->html) {
		for (j = 1; j < m->nhosts; j++) {
			fputs(st->h3_open, f);
			fmt->name(f, ds->hosts[m->hosts[j]].name);
			fputs(" relative to ", f);
			fmt->name(f, ds->hosts[m->ref].name);
			fputs(st->h3_close, f);
			mf_plot(f, fmt, m, m->hosts[j]);
		}
	}
	fputs(st->h3_open, f);
	fputs("Where the time goes", f);
	fputs(st->h3_close, f);
	mr_split_table(f, fmt, m);
	fputs(st->h3_open, f);
	fputs("Per core", f);
	fputs(st->h3_close, f);
	mr_cores(f, fmt, m);
	fputs(st->close, f);
	return (ferror(f) ? -1 : 0);
}

int
report_machines_md(FILE *f, const struct analysis *a,
    const struct report_fmt *fmt)
{
	return (mr_section(f, a, fmt, &mr_md));
}

int
report_machines_html(FILE *f, const struct analysis *a,
    const struct report_fmt *fmt)
{
	return (mr_section(f, a, fmt, &mr_html));
}

/* ---- summary.json ------------------------------------------------------ */

/* Writes ", \"key\": v" with v a number or null. */
static void
mj_num(FILE *f, const char *key, double v)
{
	fprintf(f, ", \"%s\": ", key);
	json_num(f, v);
}

static void
mj_cell(FILE *f, const struct machines *m, const struct mach_cell *c)
{
	const struct dataset	*ds = m->a->ds;
	uint32_t		 t = m->threads[c->bench];

	fputs("\"bench\": ", f);
	json_str(f, ds->benches[c->bench].name);
	fputs(", \"variant\": ", f);
	json_str(f, ds->variants[c->variant]);
	fputs(", \"metric\": ", f);
	json_str(f, ds->benches[c->bench].metrics[0]);
	fputs(", \"host\": ", f);
	json_str(f, ds->hosts[c->host].name);
	fprintf(f, ", \"n\": %zu", c->n);
	mj_num(f, "typical", c->n > 0 ? c->typical : NAN);
	fprintf(f, ", \"reference_n\": %zu", c->ref_n);
	mj_num(f, "reference_typical", c->ref_n > 0 ? c->ref_typical : NAN);
	mj_num(f, "ratio", c->ratio);
	mj_num(f, "ci_low", c->lo);
	mj_num(f, "ci_high", c->hi);
	fputs(", \"reason\": ", f);
	json_str(f, c->reason);
	if (t == SUITE_THREADS_ALL)
		fputs(", \"threads\": \"all\"", f);
	else
		fprintf(f, ", \"threads\": %u", t > 0 ? t : 1);
	mj_num(f, "cores", c->cores > 0 ? c->cores : NAN);
	mj_num(f, "reference_cores", c->ref_cores > 0 ? c->ref_cores : NAN);
	mj_num(f, "per_core_ratio", c->pc_ratio);
	mj_num(f, "per_core_ci_low", c->pc_lo);
	mj_num(f, "per_core_ci_high", c->pc_hi);
	fputs(", \"time_metric\": ", f);
	json_str(f, c->time_metric);
	mj_num(f, "instructions", c->instr);
	mj_num(f, "cycles", c->cycles);
	mj_num(f, "ipc", c->ipc);
	mj_num(f, "ghz", c->ghz);
	mj_num(f, "reference_instructions", c->ref_instr);
	mj_num(f, "reference_cycles", c->ref_cycles);
	mj_num(f, "time_ratio", c->r_time);
	mj_num(f, "instructions_ratio", c->r_instr);
	mj_num(f, "cycles_ratio", c->r_cycles);
	mj_num(f, "cpi_ratio", c->r_cpi);
	mj_num(f, "clock_ratio", c->r_clock);
}

int
report_machines_json(FILE *f, const struct analysis *a)
{
	const struct dataset	*ds = a->ds;
	const struct ds_host	*h;
	const struct machines	*m;
	size_t			 i, j;

	if (machines_get(a, &m) != 0)
		return (-1);
	if (m == NULL) {
		fputs("  \"machines\": null,\n", f);
		return (0);
	}
	fputs("  \"machines\": {\"reference\": ", f);
	json_str(f, ds->hosts[m->ref].name);
	fprintf(f, ", \"reference_given\": %s, \"paired\": false, "
	    "\"level\": %g,\n    \"hosts\": [", m->ref_given ? "true" : "false",
	    MACH_LEVEL);
	for (i = 0; i < m->nhosts; i++) {
		h = &ds->hosts[m->hosts[i]];
		fputs(i ? ",\n      {\"host\": " : "\n      {\"host\": ", f);
		json_str(f, h->name);
		fputs(", \"arch\": ", f);
		json_str(f, h->facts.arch);
		fputs(", \"cpu_model\": ", f);
		json_str(f, h->facts.cpu_model);
		fprintf(f, ", \"cores\": %u, \"emulated\": %s}", h->facts.cores,
		    m->emulated[i] ? "true" : "false");
	}
	fputs("],\n    \"differ\": [", f);
	for (i = 0; i < m->nfacts; i++) {
		fputs(i ? ",\n      {\"fact\": " : "\n      {\"fact\": ", f);
		json_str(f, m->facts[i].name);
		fputs(", \"values\": [", f);
		for (j = 0; j < m->nhosts; j++) {
			if (j > 0)
				fputs(", ", f);
			json_str(f, m->facts[i].value[j]);
		}
		fputs("]}", f);
	}
	fputs("],\n    \"ratios\": [", f);
	for (i = 0; i < m->ncells; i++) {
		fputs(i ? ",\n      {" : "\n      {", f);
		mj_cell(f, m, &m->cells[i]);
		fputs("}", f);
	}
	fputs("],\n    \"geomeans\": [", f);
	for (i = 0; i < m->ngeos; i++) {
		fputs(i ? ",\n      {\"host\": " : "\n      {\"host\": ", f);
		json_str(f, ds->hosts[m->geos[i].host].name);
		fputs(", \"variant\": ", f);
		json_str(f, ds->variants[m->geos[i].variant]);
		fprintf(f, ", \"n\": %zu", m->geos[i].nused);
		mj_num(f, "geomean", m->geos[i].est);
		mj_num(f, "ci_low", m->geos[i].lo);
		mj_num(f, "ci_high", m->geos[i].hi);
		fputs("}", f);
	}
	fputs("]},\n", f);
	return (ferror(f) ? -1 : 0);
}

/* The shared-machine note on the terminal: plain words, names cleaned. */
static const struct report_fmt rm_shared_text = {
	.name = tty_write,
	.code_open = "", .code_close = "",
	.bold_open = "", .bold_close = "",
	.note_open = "", .note_close = "\n",
};

/* The shared-machine note as the terminal's answer ends. */
void
report_machines_shared_text(FILE *f, const struct analysis *a)
{
	report_machines_shared(f, a, &rm_shared_text);
}

/*
 * Names the hosts of a's record that share a machine, one list per
 * machine, when some do: their comparisons are not independent, and each
 * geometric mean counts them as one machine. Writes nothing otherwise.
 */
void
report_machines_shared(FILE *f, const struct analysis *a,
    const struct report_fmt *fmt)
{
	const struct dataset	*ds = a->ds;
	size_t			 i, j, k, n, nsets = 0;

	for (i = 0; i < ds->nhosts; i++) {
		for (j = 0; j < i; j++)
			if (analysis_same_machine(ds, i, j))
				break;
		if (j < i)
			continue;	/* listed with its machine's first */
		for (n = 0, j = i + 1; j < ds->nhosts; j++)
			n += analysis_same_machine(ds, i, j);
		if (n == 0)
			continue;
		if (nsets++ == 0) {
			fputs(fmt->note_open, f);
			fputs(fmt->bold_open, f);
			fputs("Hosts that share a machine:", f);
			fputs(fmt->bold_close, f);
			fputc(' ', f);
		} else
			fputs("; ", f);
		for (k = 0, j = i; j < ds->nhosts; j++) {
			if (j != i && !analysis_same_machine(ds, i, j))
				continue;
			fputs(k == 0 ? "" : k == n ? " and " : ", ", f);
			fputs(fmt->code_open, f);
			fmt->name(f, ds->hosts[j].name);
			fputs(fmt->code_close, f);
			k++;
		}
		fputs(" share a machine", f);
	}
	if (nsets == 0)
		return;
	fputs(" (each with its own workdir): their comparisons are not "
	    "independent, so each geometric mean counts them as one "
	    "machine, averaging their log ratios first.", f);
	fputs(fmt->note_close, f);
}
