/*
 * Numbers in documents (docs/evidence.md): each mark of a Markdown file
 * (coordinator/input/docmark.h) checked against, or rewritten from, the
 * analysis of its run, formatted as report.md formats that figure.
 */
#ifndef COORDINATOR_REPORT_DOC_H
#define COORDINATOR_REPORT_DOC_H

/*
 * orch doc check (render 0) or render (1) of the document at path. Each
 * RUN is a run directory, else a baseline's name, loaded once. Check
 * returns 0 when every mark's VALUE is what its run gives now, 1 with
 * *diffs set (caller frees) to a line "PATH:LINE: VALUE in the document,
 * NEW from RUN" per mark that differs; render rewrites the marks that
 * differ through file_write (proto/file.h), changing no byte outside
 * them, refuses a document that is a link, and returns 0 with *diffs
 * naming what it rewrote (NULL when nothing). Both return -1 with *cause
 * set (caller frees) to "PATH:LINE: why" for a malformed mark or one
 * naming a run, host, bench, variant, metric or group that does not
 * exist.
 */
int	report_doc(const char *path, int render, char **diffs, char **cause);

#endif
