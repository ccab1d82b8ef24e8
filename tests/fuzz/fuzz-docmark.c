/*
 * libFuzzer target for the mark parser of orch doc (docmark.c): each input
 * is a Markdown document. The parser must keep its promises: on success
 * every mark's VALUE lies inside the text after its opening, marks come
 * in order, each names a run and one of field= and table=, a figure is
 * one line; on failure the error starts "fuzz.md:". Build and run (see
 * tests/fuzz/corpus-docmark/ for seeds):
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -I. \
 *	tests/fuzz/fuzz-docmark.c coordinator/input/docmark.c \
 *	proto/xmalloc.c proto/log.c proto/ident.c -o build/fuzz/fuzz-docmark
 *   build/fuzz/fuzz-docmark -max_total_time=60 tests/fuzz/corpus-docmark
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coordinator/input/docmark.h"

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* Checks the marks of a parsed document; aborts on a broken promise. */
static void
fuzz_check(const struct docmarks *dm, size_t len)
{
	const struct docmark	*m;
	size_t			 i, end = 0;

	if (dm->len != len || dm->text[len] != '\0')
		abort();
	for (i = 0; i < dm->nmarks; i++) {
		m = &dm->marks[i];
		if (m->val_off < end || m->val_off > len ||
		    m->val_len > len - m->val_off || m->run == NULL ||
		    m->run[0] == '\0' || m->line == 0)
			abort();
		if ((m->key[DM_FIELD] == NULL) == (m->key[DM_TABLE] == NULL))
			abort();
		if (m->key[DM_FIELD] != NULL && memchr(dm->text + m->val_off,
		    '\n', m->val_len) != NULL)
			abort();
		if (i > 0 && m->line < dm->marks[i - 1].line)
			abort();
		end = m->val_off + m->val_len;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct docmarks	*dm = NULL;
	char		*text, *cause = NULL;

	if ((text = malloc(size + 1)) == NULL)
		return (0);
	if (size > 0)
		memcpy(text, data, size);
	text[size] = '\0';
	if (docmark_parse("fuzz.md", text, size, &dm, &cause) == 0) {
		fuzz_check(dm, size);
		docmark_free(dm);
	} else {
		if (dm != NULL || cause == NULL ||
		    strncmp(cause, "fuzz.md:", 8) != 0)
			abort();
		free(cause);
	}
	free(text);
	return (0);
}
