/*
 * The report's Machines section (coordinator/analysis/machines.h compares
 * the hosts): in report.md, in report.html and as summary.json's member.
 */
#ifndef COORDINATOR_REPORT_MACHINES_H
#define COORDINATOR_REPORT_MACHINES_H

#include <stdio.h>

#include "coordinator/analysis/analysis.h"
#include "coordinator/report/report-text.h"

/* The section in each report: Markdown, HTML, and summary.json's member. */
int	report_machines_md(FILE *f, const struct analysis *a,
	    const struct report_fmt *fmt);
int	report_machines_html(FILE *f, const struct analysis *a,
	    const struct report_fmt *fmt);
int	report_machines_json(FILE *f, const struct analysis *a);

#endif
