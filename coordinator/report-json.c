/* summary.json, as DESIGN.md specifies it (extra fields only added). */
#include <math.h>
#include <stdio.h>

#include "coordinator/json.h"
#include "coordinator/report.h"

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
		fputs("}", f);
	}
	fputs(a->ncmps ? "\n  ]\n}\n" : "]\n}\n", f);
	return (ferror(f) ? -1 : 0);
}
