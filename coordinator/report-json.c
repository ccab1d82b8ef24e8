/* summary.json, as DESIGN.md specifies it (extra fields only added). */
#include <math.h>
#include <stdio.h>

#include "coordinator/analysis.h"
#include "coordinator/json.h"
#include "coordinator/report.h"

/* How a variant's files relate to the reference's (REP_FILES_*). */
static const char *const json_files[] = { "different", "same", "identical" };

/* Writes the groups, geometric means, matrix rows and answers (additions). */
static void
json_across(const struct analysis *a, FILE *f)
{
	const struct dataset	*ds = a->ds;
	const struct rep_group	*g;
	const struct rep_geo	*geo;
	const struct rep_row	*row;
	const struct ds_host	*h;
	size_t			 i, j;

	fputs("  \"groups\": [", f);
	for (i = 0; i < a->ngroups; i++) {
		g = &a->groups[i];
		h = &ds->hosts[a->hosts[g->from].host];
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"label\": ", f);
		json_str(f, g->label);
		fputs(", \"arch\": ", f);
		json_str(f, h->facts.arch);
		fputs(", \"cpu_model\": ", f);
		json_str(f, h->facts.cpu_model);
		fputs(", \"hosts\": [", f);
		for (j = g->from; j < g->to; j++) {
			if (j > g->from)
				fputs(", ", f);
			json_str(f, ds->hosts[a->hosts[j].host].name);
		}
		fputs("]}", f);
	}
	fputs(a->ngroups ? "\n  ],\n" : "],\n", f);

	fputs("  \"geomeans\": [", f);
	for (i = 0; i < a->ngeos; i++) {
		geo = &a->geos[i];
		h = &ds->hosts[a->hosts[a->groups[geo->group].from].host];
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"group\": ", f);
		json_str(f, a->groups[geo->group].label);
		fputs(", \"arch\": ", f);
		json_str(f, h->facts.arch);
		fputs(", \"cpu_model\": ", f);
		json_str(f, h->facts.cpu_model);
		fputs(", \"variant\": ", f);
		json_str(f, ds->variants[geo->variant]);
		fputs(", \"reference\": ", f);
		json_str(f, ds->variants[ds->ref]);
		fprintf(f, ", \"n\": %zu, \"invalid\": %zu", geo->nused,
		    geo->ninvalid);
		fputs(", \"geomean\": ", f);
		json_num(f, geo->est);
		fputs(", \"ci_low\": ", f);
		json_num(f, geo->lo);
		fputs(", \"ci_high\": ", f);
		json_num(f, geo->hi);
		fprintf(f, ", \"verdict\": \"%s\", \"inverted\": %s, "
		    "\"aa\": %s}", stats_verdict_name(geo->verdict),
		    a->inverted ? "true" : "false", geo->aa ? "true" : "false");
	}
	fputs(a->ngeos ? "\n  ],\n" : "],\n", f);

	fputs("  \"matrix\": [", f);
	for (i = 0; i < a->nrows; i++) {
		row = &a->rows[i];
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"bench\": ", f);
		json_str(f, ds->benches[row->bench].name);
		fputs(", \"metric\": ", f);
		json_str(f, ds->benches[row->bench].metrics[0]);
		fputs(", \"variant\": ", f);
		json_str(f, ds->variants[row->variant]);
		fprintf(f, ", \"differs\": %s, \"agreement\": ",
		    row->differs ? "true" : "false");
		json_str(f, row->agreement);
		fputs("}", f);
	}
	fputs(a->nrows ? "\n  ],\n" : "],\n", f);

	fputs("  \"answers\": [", f);
	for (i = 0; i < a->nanswers; i++) {
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"variant\": ", f);
		json_str(f, ds->variants[a->answers[i].variant]);
		fputs(", \"reference\": ", f);
		json_str(f, ds->variants[ds->ref]);
		fputs(", \"headline\": ", f);
		json_str(f, a->answers[i].headline);
		fputs(", \"detail\": ", f);
		json_str(f, a->answers[i].detail);
		fputs("}", f);
	}
	fputs(a->nanswers ? "\n  ]\n" : "]\n", f);
}

int
report_json(const struct analysis *a, FILE *f)
{
	const struct dataset		*ds = a->ds;
	const struct ds_host		*h;
	const struct rep_result		*res;
	const struct rep_cmp		*c;
	size_t				 i;

	fputs("{\n  \"orch_version\": ", f);
	json_str(f, ds->orch_version);
	fputs(",\n  \"run_id\": ", f);
	json_str(f, ds->run_id);
	fputs(",\n  \"suite\": ", f);
	json_str(f, ds->suite_name);
	fprintf(f, ",\n  \"seed\": %llu", (unsigned long long)ds->seed);
	fputs(",\n  \"reference\": ", f);
	json_str(f, ds->variants[ds->ref]);
	fputs(",\n  \"min_effect\": ", f);
	json_num(f, ds->min_effect);
	fprintf(f, ",\n  \"rounds\": %u", ds->rounds);
	fputs(",\n  \"started\": ", f);
	json_str(f, ds->started);
	fputs(",\n  \"ended\": ", f);
	json_str(f, ds->ended);
	fputs(",\n  \"complete\": ", f);
	fputs(ds->ended[0] != '\0' && !ds->truncated ? "true" : "false", f);

	fputs(",\n  \"hosts\": [", f);
	for (i = 0; i < a->nhosts; i++) {
		h = &ds->hosts[a->hosts[i].host];
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"name\": ", f);
		json_str(f, h->name);
		fputs(", \"os\": ", f);
		json_str(f, h->facts.os);
		fputs(", \"arch\": ", f);
		json_str(f, h->facts.arch);
		fputs(", \"cpu_model\": ", f);
		json_str(f, h->facts.cpu_model);
		fprintf(f, ", \"cores\": %u", h->facts.cores);
		fprintf(f, ", \"status\": \"%s\"",
		    h->failed || !h->ended ? "failed" : "ok");
		fputs(", \"error\": ", f);
		json_str(f, h->failed || h->ended ? h->error :
		    "the record ends before this host finished");
		fputs(", \"agent_version\": ", f);
		json_str(f, h->agent_version);
		fprintf(f, ", \"samples\": %zu, \"failed_samples\": %zu, "
		    "\"retries\": %zu", a->hosts[i].samples,
		    a->hosts[i].failed, a->hosts[i].retries);
		fprintf(f, ", \"pushed_files\": %llu, \"pushed_bytes\": %llu",
		    (unsigned long long)h->pushed_files,
		    (unsigned long long)h->pushed_bytes);
		fputs(", \"load_median\": ", f);
		json_num(f, a->hosts[i].load_med);
		fputs(", \"load_max\": ", f);
		json_num(f, a->hosts[i].load_max);
		fputs(", \"floor_median_ns\": ", f);
		json_num(f, a->hosts[i].hyg.floor.n > 0 ?
		    a->hosts[i].hyg.floor.median : NAN);
		fprintf(f, ", \"floor_runs\": %zu, \"floor_subtracted\": %s",
		    a->hosts[i].hyg.floor.n,
		    a->hosts[i].floor_sub > 0 ? "true" : "false");
		fputs("}", f);
	}
	fputs(a->nhosts ? "\n  ],\n" : "],\n", f);

	fputs("  \"results\": [", f);
	for (i = 0; i < a->nresults; i++) {
		res = &a->results[i];
		h = &ds->hosts[res->host];
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"host\": ", f);
		json_str(f, h->name);
		fputs(", \"arch\": ", f);
		json_str(f, h->facts.arch);
		fputs(", \"bench\": ", f);
		json_str(f, ds->benches[res->bench].name);
		fputs(", \"metric\": ", f);
		json_str(f, ds->benches[res->bench].metrics[res->metric]);
		fputs(", \"variant\": ", f);
		json_str(f, ds->variants[res->variant]);
		fprintf(f, ", \"n\": %zu", res->sum.n);
		fputs(", \"median\": ", f);
		json_num(f, res->sum.n ? res->sum.median : NAN);
		fputs(", \"min\": ", f);
		json_num(f, res->sum.n ? res->sum.min : NAN);
		fputs(", \"max\": ", f);
		json_num(f, res->sum.n ? res->sum.max : NAN);
		fprintf(f, ", \"failed\": %zu", res->failed);
		fputs(", \"iqr_pct\": ", f);
		json_num(f, res->sum.n ? res->sum.iqr_pct : NAN);
		fputs(", \"cv\": ", f);
		json_num(f, res->sum.n ? res->sum.cv : NAN);
		fprintf(f, ", \"retried\": %zu", res->retried);
		fputs("}", f);
	}
	fputs(a->nresults ? "\n  ],\n" : "],\n", f);

	fputs("  \"comparisons\": [", f);
	for (i = 0; i < a->ncmps; i++) {
		c = &a->cmps[i];
		h = &ds->hosts[c->host];
		fputs(i ? ",\n    {" : "\n    {", f);
		fputs("\"host\": ", f);
		json_str(f, h->name);
		fputs(", \"arch\": ", f);
		json_str(f, h->facts.arch);
		fputs(", \"bench\": ", f);
		json_str(f, ds->benches[c->bench].name);
		fputs(", \"metric\": ", f);
		json_str(f, ds->benches[c->bench].metrics[c->metric]);
		fputs(", \"variant\": ", f);
		json_str(f, ds->variants[c->variant]);
		fputs(", \"reference\": ", f);
		json_str(f, ds->variants[ds->ref]);
		fputs(", \"ratio\": ", f);
		json_num(f, c->ratio);
		fputs(", \"ci_low\": ", f);
		json_num(f, c->lo);
		fputs(", \"ci_high\": ", f);
		json_num(f, c->hi);
		fprintf(f, ", \"verdict\": \"%s\"",
		    stats_verdict_name(c->verdict));
		fprintf(f, ", \"n\": %zu", c->npairs);
		fputs(", \"p_value\": ", f);
		json_num(f, c->p);
		fputs(", \"primary\": ", f);
		fputs(c->metric == 0 ? "true" : "false", f);
		fputs(", \"reason\": ", f);
		json_str(f, c->reason);
		fprintf(f, ", \"files\": \"%s\"", json_files[c->files]);
		fputs("}", f);
	}
	fputs(a->ncmps ? "\n  ],\n" : "],\n", f);
	json_across(a, f);
	fputs("}\n", f);
	return (ferror(f) ? -1 : 0);
}
