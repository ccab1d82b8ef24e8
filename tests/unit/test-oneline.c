/*
 * Unit tests for coordinator/input/oneline.c: the word splitter on hostile
 * input (each case with its exact words or the start of its error), and
 * the suite text of a one-line run, which must give every word back
 * unchanged through the suite parser, whatever bytes it holds.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "coordinator/input/oneline.h"
#include "coordinator/input/suite.h"

#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* Renders words as "[w1][w2]..." so empty words and blanks show. */
static void
render(char **w, size_t n, char *out, size_t len)
{
	size_t	i, o = 0;

	out[0] = '\0';
	for (i = 0; i < n; i++)
		o += (size_t)snprintf(out + o, len - o, "[%s]", w[i]);
}

/* A command and its words, or (want NULL) the start of its error. */
struct split_case {
	const char	*cmd;
	const char	*want;
	const char	*err;
};

static const struct split_case split_cases[] = {
	{ "gzip -1 -c file", "[gzip][-1][-c][file]", NULL },
	{ "  a\t b  ", "[a][b]", NULL },
	{ "a 'b c' \"d e\"", "[a][b c][d e]", NULL },
	{ "a '' \"\"", "[a][][]", NULL },
	{ "a 'x'\"y\"z", "[a][xyz]", NULL },
	{ "a 'it'\\''s'", "[a][it's]", NULL },
	{ "a \\ b", "[a][ b]", NULL },
	{ "a \\$HOME '$HOME' \"\\$HOME\"", "[a][$HOME][$HOME][$HOME]", NULL },
	{ "a \"x\\\"y\" \"a\\\\b\" \"c\\d\"", "[a][x\"y][a\\b][c\\d]", NULL },
	{ "a 'x|y;z&w<v>u(t)s*r?q[p'", "[a][x|y;z&w<v>u(t)s*r?q[p]", NULL },
	{ "a \\| \\; \\* \\#", "[a][|][;][*][#]", NULL },
	{ "a x~y x#y", "[a][x~y][x#y]", NULL },
	{ "a '~' \\~ '#'", "[a][~][~][#]", NULL },
	{ "prog --size=1e3 a=b", "[prog][--size=1e3][a=b]", NULL },
	{ "'FOO=1' ls", "[FOO=1][ls]", NULL },
	{ "a {x} b}", "[a][{x}][b}]", NULL },
	/* Nothing bash would expand: quoted lists, {}, a lone '.'. */
	{ "find . -exec cmd {} \\;", "[find][.][-exec][cmd][{}][;]", NULL },
	{ "a '{a,b}' {a\\,b} \"x{1..3}\" {a.b}",
	  "[a][{a,b}][{a,b}][x{1..3}][{a.b}]", NULL },
	{ "a {a,b", "[a][{a,b]", NULL },
	{ "a 'a=~' a=\\~ --prefix=~ 1a=~ a~=b x=y~",
	  "[a][a=~][a=~][--prefix=~][1a=~][a~=b][x=y~]", NULL },
	{ "a {a,b}", NULL, "unquoted '{' with a ',' or '..' before its '}' "
	  "would be a brace expansion in bash; orch runs each command "
	  "without a shell: quote it" },
	{ "a x{1..3}", NULL, "unquoted '{' with a ',' or '..' before its '}'" },
	{ "a pre{x,'y'}post", NULL, "unquoted '{' with a ','" },
	{ "a a=~", NULL, "unquoted '~' after NAME= would be expanded to a "
	  "home directory by bash; orch runs each command without a shell: "
	  "quote it" },
	{ "a PATH=/x:~/bin", NULL, "unquoted '~' after NAME=" },
	{ "a \xc3\xa9t\xc3\xa9", "[a][\xc3\xa9t\xc3\xa9]", NULL },
	{ "", NULL, "empty command" },
	{ "   \t ", NULL, "empty command" },
	{ "ls | wc", NULL, "unquoted '|' is a shell operator" },
	{ "a;b", NULL, "unquoted ';' is a shell operator" },
	{ "a && b", NULL, "unquoted '&' is a shell operator" },
	{ "sleep 1 &", NULL, "unquoted '&' is a shell operator" },
	{ "a > out", NULL, "unquoted '>' is a shell operator" },
	{ "a <in", NULL, "unquoted '<' is a shell operator" },
	{ "(a)", NULL, "unquoted '(' is a shell operator" },
	{ "echo $HOME", NULL, "unquoted '$' would be expanded" },
	{ "echo ${x}", NULL, "unquoted '$' would be expanded" },
	{ "echo `id`", NULL, "unquoted '`' would be a command substitution" },
	{ "echo \"$(id)\"", NULL, "'$' inside \"…\" would be expanded" },
	{ "echo \"`id`\"", NULL, "'`' inside \"…\" would be expanded" },
	{ "ls *.c", NULL, "unquoted '*' would be a glob" },
	{ "ls a?", NULL, "unquoted '?' would be a glob" },
	{ "ls [ab]", NULL, "unquoted '[' would be a glob" },
	{ "ls ~/x", NULL, "unquoted '~' would be expanded to a home" },
	{ "ls #x", NULL, "unquoted '#' would start a comment" },
	{ "a\nb", NULL, "'\\n' (a line break) would end the command" },
	{ "a\rb", NULL, "'\\r' (a line break) would end the command" },
	{ "a \\\nb", NULL, "'\\n' (a line break)" },
	{ "a \"x\\\ny\"", NULL, "'\\n' (a line break)" },
	{ "a 'x\ny'", NULL, "'\\n' (a line break)" },
	{ "a \"x\ry\"", NULL, "'\\r' (a line break)" },
	{ "a 'b", NULL, "unterminated ' quote" },
	{ "a \"b", NULL, "unterminated \" quote" },
	{ "a \"b\\\"", NULL, "unterminated \" quote" },
	{ "a b\\", NULL, "a backslash at the end" },
	{ "FOO=1 ls", NULL, "'FOO=1' would set an environment variable" },
	{ "_x9=a b", NULL, "'_x9=a' would set an environment variable" },
};

/* Every case splits to its words, or fails with its error. */
static void
test_split(void **state)
{
	char	**w, *cause, got[1024];
	size_t	  n, i;
	int	  rc;

	(void)state;
	for (i = 0; i < NELEM(split_cases); i++) {
		const struct split_case *c = &split_cases[i];

		rc = oneline_split(c->cmd, &w, &n, &cause);
		if (c->want != NULL) {
			if (rc != 0)
				fail_msg("'%s': %s", c->cmd, cause);
			render(w, n, got, sizeof got);
			if (strcmp(got, c->want) != 0)
				fail_msg("'%s': got %s, want %s", c->cmd, got,
				    c->want);
			assert_null(w[n]);
			oneline_free_words(w, n);
			continue;
		}
		if (rc == 0) {
			render(w, n, got, sizeof got);
			fail_msg("'%s': split to %s, want an error", c->cmd,
			    got);
		}
		assert_null(w);
		assert_non_null(cause);
		if (strncmp(cause, c->err, strlen(c->err)) != 0)
			fail_msg("'%s': error '%s', want '%s...'", c->cmd,
			    cause, c->err);
		free(cause);
	}
}

/* At most 256 words: one more is refused. */
static void
test_split_limit(void **state)
{
	char	 cmd[2048], **w, *cause;
	size_t	 n, i, o = 0;

	(void)state;
	for (i = 0; i < 256; i++)
		o += (size_t)snprintf(cmd + o, sizeof cmd - o, "w ");
	assert_int_equal(oneline_split(cmd, &w, &n, &cause), 0);
	assert_int_equal(n, 256);
	oneline_free_words(w, n);
	snprintf(cmd + o, sizeof cmd - o, "x");
	assert_int_equal(oneline_split(cmd, &w, &n, &cause), -1);
	assert_string_equal(cause, "too many words (at most 256)");
	free(cause);
}

/* Loads a generated suite text, failing the test with the cause if not. */
static struct suite *
load_text(const char *text)
{
	struct suite	*s = NULL;
	char		*cause = NULL;

	if (suite_load_text(ONELINE_LABEL, text, &s, &cause) != 0)
		fail_msg("%s\n--- text:\n%s", cause, text);
	return (s);
}

/*
 * Hostile words survive the suite text: quotes, blanks, ';' and '#'
 * (comments to inih), backslashes, braces, bytes over 0x7f.
 */
static void
test_roundtrip(void **state)
{
	static const char *const cmds[] = {
		"true 'a ;b' 'x #y' ';' '#' \"q'uote\" 'dq\"' 'back\\slash'",
		"true '' ' ' '\t' ' lead' 'trail ' '{file:x}' '{os}' "
		    "'=x' 'a=b' '\\' '\\\\' '\xc3\xa9' 'x\x01y' '$HOME' '`' "
		    "'\fstart' 'x;' ';x' ' ;' 'end\v'",	/* inih trims \v */
	};
	struct suite	*s;
	char		*text, *cause, **w, got[1024], want[1024];
	size_t		 i, n;

	(void)state;
	assert_int_equal(setenv("PATH", "/nonexistent:/usr/bin:/bin", 1), 0);
	assert_int_equal(oneline_suite(cmds, NELEM(cmds), NULL,
	    0, &text, &cause), 0);
	s = load_text(text);
	assert_string_equal(s->name, "oneline");
	assert_int_equal(s->nvariants, 2);
	assert_int_equal(s->ref, 0);
	assert_int_equal(s->nbenches, 1);
	assert_string_equal(s->benches[0].name, "cmd");
	assert_int_equal(s->benches[0].nargs, 0);
	for (i = 0; i < NELEM(cmds); i++) {
		assert_int_equal(oneline_split(cmds[i], &w, &n, &cause), 0);
		render(w + 1, n - 1, want, sizeof want);
		render(s->variants[i].args, s->variants[i].nargs, got,
		    sizeof got);
		assert_string_equal(got, want);
		assert_string_equal(s->variants[i].bin, "/usr/bin/true");
		oneline_free_words(w, n);
	}
	assert_string_equal(s->text, text);
	suite_free(s);
	free(text);
}

/* Names: derived from the commands, made unique; or given with -n. */
static void
test_names(void **state)
{
	static const char *const cmds[] = {
		"true -1 --fast", "true -1 --fast", "/usr/bin/true 'a b/c'",
		"true", "true ...x",
	};
	static const char *const given[] = { "A", "B" };
	struct suite	*s;
	char		*text, *cause;

	(void)state;
	assert_int_equal(setenv("PATH", "/usr/bin:/bin", 1), 0);
	assert_int_equal(oneline_suite(cmds, NELEM(cmds), NULL,
	    0, &text, &cause), 0);
	s = load_text(text);
	assert_int_equal(s->nvariants, 5);
	assert_string_equal(s->variants[0].name, "true_-1_--fast");
	assert_string_equal(s->variants[1].name, "true_-1_--fast.2");
	assert_string_equal(s->variants[2].name, "true_a_b_c");
	assert_string_equal(s->variants[3].name, "true");
	assert_string_equal(s->variants[4].name, "true_...x");
	suite_free(s);
	free(text);

	assert_int_equal(oneline_suite(cmds, 2,
	    given, 2, &text, &cause), 0);
	s = load_text(text);
	assert_string_equal(s->variants[0].name, "A");
	assert_string_equal(s->variants[1].name, "B");
	suite_free(s);
	free(text);
}

/* A long derived name is cut to fit, and stays unique. */
static void
test_long_names(void **state)
{
	char		 a[160], *text, *cause;
	const char	*cmds[2];
	struct suite	*s;

	(void)state;
	assert_int_equal(setenv("PATH", "/usr/bin:/bin", 1), 0);
	memset(a, 'x', sizeof a);
	memcpy(a, "true ", 5);
	a[sizeof a - 1] = '\0';
	cmds[0] = cmds[1] = a;
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text, &cause), 0);
	s = load_text(text);
	assert_int_equal(strlen(s->variants[0].name), 63);
	assert_int_equal(strlen(s->variants[1].name), 63);
	assert_string_equal(s->variants[1].name + 61, ".2");
	suite_free(s);
	free(text);
}

/* A relative path is made absolute; a bare name comes from PATH. */
static void
test_program(void **state)
{
	char		 dir[] = "/tmp/orch-oneline.XXXXXX", cwd[4096], *text;
	char		 want[4200], *cause;
	const char	*cmds[] = { "./prog x", "prog y" };	/* changed below */
	struct suite	*s;
	FILE		*f;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	assert_non_null(f = fopen("prog", "w"));
	fputs("#!/bin/sh\n", f);
	fclose(f);
	assert_int_equal(chmod("prog", 0755), 0);
	assert_int_equal(setenv("PATH", dir, 1), 0);
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text,
	    &cause), 0);
	s = load_text(text);
	snprintf(want, sizeof want, "%s/./prog", dir);
	assert_string_equal(s->variants[0].bin, want);
	snprintf(want, sizeof want, "%s/prog", dir);
	assert_string_equal(s->variants[1].bin, want);
	assert_string_equal(s->variants[0].name, "prog_x");
	suite_free(s);
	free(text);

	/* A path with a blank is written as it is: bin = is not split. */
	assert_int_equal(mkdir("a b", 0755), 0);
	assert_int_equal(rename("prog", "a b/prog"), 0);
	cmds[0] = "'./a b/prog' x";
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text, &cause), -1);
	assert_string_equal(cause, "command 2 'prog y': program 'prog' is not "
	    "in PATH (orch pushes a program from this machine; give its path "
	    "to push another)");
	free(cause);
	cmds[1] = "'./a b/prog' y";
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text, &cause), 0);
	s = load_text(text);
	snprintf(want, sizeof want, "%s/./a b/prog", dir);
	assert_string_equal(s->variants[0].bin, want);
	assert_string_equal(s->variants[1].name, "prog_y");
	suite_free(s);
	free(text);
	/* One that bin = cannot hold is refused. */
	assert_int_equal(rename("a b", "a ;b"), 0);
	cmds[0] = "'./a ;b/prog' x";
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text, &cause), -1);
	snprintf(want, sizeof want, "command 1 ''./a ;b/prog' x': program "
	    "'./a ;b/prog' is %s/./a ;b/prog, which a suite's bin = cannot "
	    "hold (a blank at an end, a blank then ';', '{' or a control "
	    "character): move or link it", dir);
	assert_string_equal(cause, want);
	free(cause);
	assert_int_equal(rename("a ;b/prog", "prog"), 0);
	assert_int_equal(rmdir("a ;b"), 0);
	cmds[0] = "./prog x";
	cmds[1] = "prog y";

	/* Not executable: refused, naming the command. */
	assert_int_equal(chmod("prog", 0644), 0);
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text,
	    &cause), -1);
	assert_string_equal(cause, "command 1 './prog x': program './prog' is "
	    "not an executable file");
	free(cause);
	assert_int_equal(unlink("prog"), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * The argument words that name an existing regular file relative to the
 * current directory become the bench's files and its setup's links;
 * options, NAME=value, absolute paths, directories and missing files do
 * not; a file above the current directory is refused.
 */
static void
test_files(void **state)
{
	char		 dir[] = "/tmp/orch-oneline.XXXXXX", cwd[4096], *text;
	char		 want[4200], *cause;
	const char	*cmds[] = { "gzip -c data.bin sub/in.txt sub",
			    "gzip -c data.bin -x k=data.bin /etc/hostname no" };
	const struct suite_hook *h;
	struct suite	*s;
	FILE		*f;

	(void)state;
	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(mkdir("sub", 0755), 0);
	assert_non_null(f = fopen("data.bin", "w"));
	fclose(f);
	assert_non_null(f = fopen("sub/in.txt", "w"));
	fclose(f);
	assert_non_null(f = fopen("-x", "w"));
	fclose(f);
	assert_int_equal(setenv("PATH", "/usr/bin:/bin", 1), 0);
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text, &cause), 0);
	s = load_text(text);
	assert_int_equal(s->benches[0].nfiles, 2);
	assert_string_equal(s->benches[0].files[0].name, "f1");
	snprintf(want, sizeof want, "%s/data.bin", dir);
	assert_string_equal(s->benches[0].files[0].path, want);
	snprintf(want, sizeof want, "%s/sub/in.txt", dir);
	assert_string_equal(s->benches[0].files[1].path, want);
	h = &s->benches[0].hooks[SUITE_HOOK_SETUP];
	assert_string_equal(h->host, "sh");
	assert_int_equal(h->nargv, 8);
	assert_string_equal(h->argv[3], "sh");
	assert_string_equal(h->argv[4], "{file:f1}");
	assert_string_equal(h->argv[5], "data.bin");
	assert_string_equal(h->argv[6], "{file:f2}");
	assert_string_equal(h->argv[7], "sub/in.txt");
	/* The command lines are unchanged. */
	assert_string_equal(s->variants[0].args[1], "data.bin");
	suite_free(s);
	free(text);

	/* No file: no files =, no setup. */
	cmds[0] = "gzip -c nothing";
	cmds[1] = "gzip -c sub";
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text, &cause), 0);
	assert_null(strstr(text, "files ="));
	assert_null(strstr(text, "setup ="));
	free(text);

	cmds[0] = "gzip -c sub/../data.bin";
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text, &cause), -1);
	assert_string_equal(cause, "command 1 'gzip -c sub/../data.bin': file "
	    "'sub/../data.bin' is outside the current directory: orch pushes "
	    "a file of a command line into the run's directory under the name "
	    "typed, which '..' would leave (run orch from a directory above "
	    "it, or give its absolute path to read the host's own)");
	free(cause);
	assert_int_equal(unlink("-x"), 0);
	assert_int_equal(unlink("data.bin"), 0);
	assert_int_equal(unlink("sub/in.txt"), 0);
	assert_int_equal(rmdir("sub"), 0);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(rmdir(dir), 0);
}

/*
 * --prepare and -L: the bench's prepare hook and params sweep, {NAME} in
 * the arguments a {param:NAME} the run fills per point (also in a
 * variant's args, which suite.c checks against every bench); and each
 * refusal.
 */
static void
test_opts(void **state)
{
	const char		*cmds[] = { "sleep {t}", "sleep 1" };
	struct oneline_opts	 o;
	struct suite		*s;
	char			*text, *cause, *a;

	(void)state;
	assert_int_equal(setenv("PATH", "/usr/bin:/bin", 1), 0);
	memset(&o, 0, sizeof o);
	o.prepare = "sh -c 'echo {t}'";
	o.nparams = 1;
	o.pname[0] = "t";
	o.pvals[0] = "1,2.5";
	assert_int_equal(oneline_suite_opts(cmds, 2, NULL, 0, &o, &text,
	    &cause), 0);
	s = load_text(text);
	assert_int_equal(s->nbenches, 2);
	assert_string_equal(s->benches[0].name, "cmd.t-1");
	assert_string_equal(s->benches[1].name, "cmd.t-2.5");
	assert_string_equal(s->variants[0].name, "sleep_t");
	assert_string_equal(s->variants[0].args[0], "{param:t}");
	assert_non_null(a = suite_point_subst(&s->benches[1],
	    s->variants[0].args[0]));
	assert_string_equal(a, "2.5");
	free(a);
	assert_int_equal(s->benches[1].hooks[SUITE_HOOK_PREPARE].nargv, 3);
	assert_string_equal(s->benches[1].hooks[SUITE_HOOK_PREPARE].argv[2],
	    "echo 2.5");
	suite_free(s);
	free(text);

	/* Refusals. */
	o.pvals[0] = "1 2";
	assert_int_equal(oneline_suite_opts(cmds, 2, NULL, 0, &o, &text,
	    &cause), -1);
	assert_string_equal(cause, "-L t '1 2': bad values (want V1,V2,... "
	    "of A-Z a-z 0-9 _ . -)");
	free(cause);
	o.pvals[0] = "1,2";
	o.pname[0] = "t}";
	assert_int_equal(oneline_suite_opts(cmds, 2, NULL, 0, &o, &text,
	    &cause), -1);
	assert_string_equal(cause, "-L 't}': bad name (want a letter or _, "
	    "then letters, digits or _, at most 31)");
	free(cause);
	o.pname[0] = "u";
	o.prepare = NULL;
	assert_int_equal(oneline_suite_opts(cmds, 2, NULL, 0, &o, &text,
	    &cause), -1);
	assert_string_equal(cause, "-L u: {u} is in no command");
	free(cause);
	cmds[0] = "{u}sleep 1";
	assert_int_equal(oneline_suite_opts(cmds, 2, NULL, 0, &o, &text,
	    &cause), -1);
	assert_string_equal(cause, "command 1 '{u}sleep 1': -L u: {u} in the "
	    "program '{u}sleep': orch pushes one program per command; sweep "
	    "its arguments");
	free(cause);
	o.prepare = "nonesuch-orch-x";
	cmds[0] = "sleep {u}";
	assert_int_equal(oneline_suite_opts(cmds, 2, NULL, 0, &o, &text,
	    &cause), -1);
	assert_string_equal(cause, "--prepare 'nonesuch-orch-x': program "
	    "'nonesuch-orch-x' is not in PATH (orch pushes a program from "
	    "this machine; give its path to push another)");
	free(cause);

	/* A suite's variant with a {param:NAME} no bench sweeps. */
	assert_int_equal(suite_load_text("v.ini", "[variant.A]\nbin = "
	    "/bin/sh\nargs = {param:n}\n[variant.B]\nbin = /bin/sh\n"
	    "[bench.x]\nparams = n=1,2\n[bench.y]\n", &s, &cause), -1);
	assert_string_equal(cause, "v.ini:1: [variant.A] args: {param:n} is "
	    "no parameter of [bench.y] (a variant's {param:NAME} needs every "
	    "benchmark to sweep NAME)");
	free(cause);
}

/* Each bad command line with its exact message. */
static void
test_errors(void **state)
{
	static const struct {
		const char	*cmds[3];
		size_t		 ncmds;
		const char	*names[3];
		size_t		 nnames;
		const char	*err;
	} cases[] = {
		{ { "true" }, 1, { NULL }, 0, "orch run --: give at least two "
		    "commands to compare (the first is the reference)" },
		{ { "true", "true" }, 2, { "A" }, 1, "-n: 1 name for 2 "
		    "commands (give one per command, or none)" },
		{ { "true", "true" }, 2, { "A", "-x" }, 2, "-n '-x': bad name "
		    "(want 1 to 63 of A-Z a-z 0-9 _ . -, not starting with - "
		    "or .)" },
		{ { "true", "true" }, 2, { "A", "A" }, 2, "-n 'A': given "
		    "twice" },
		{ { "true", "nonesuch-orch x" }, 2, { NULL }, 0, "command 2 "
		    "'nonesuch-orch x': program 'nonesuch-orch' is not in PATH "
		    "(orch pushes a program from this machine; give its path to "
		    "push another)" },
		{ { "/nonexistent/x", "true" }, 2, { NULL }, 0, "command 1 "
		    "'/nonexistent/x': program '/nonexistent/x': No such file "
		    "or directory" },
		{ { "true", "true | wc" }, 2, { NULL }, 0, "command 2 'true | "
		    "wc': unquoted '|' is a shell operator; orch runs each "
		    "command without a shell: quote it to pass it on as it is, "
		    "or write a wrapper script or a suite (docs/suites.md)" },
		{ { "/usr", "true" }, 2, { NULL }, 0, "command 1 '/usr': "
		    "program '/usr' is not an executable file" },
	};
	char	*text, *cause;
	size_t	 i;

	(void)state;
	assert_int_equal(setenv("PATH", "/usr/bin:/bin", 1), 0);
	for (i = 0; i < NELEM(cases); i++) {
		text = NULL;
		cause = NULL;
		assert_int_equal(oneline_suite(cases[i].cmds,
		    cases[i].ncmds, cases[i].names,
		    cases[i].nnames, &text, &cause), -1);
		assert_null(text);
		assert_string_equal(cause, cases[i].err);
		free(cause);
	}
}

/* A command whose args line would pass inih's 198 characters is refused. */
static void
test_too_long(void **state)
{
	char		 cmd[400], *text, *cause;
	const char	*cmds[2];

	(void)state;
	assert_int_equal(setenv("PATH", "/usr/bin:/bin", 1), 0);
	memset(cmd, 'y', sizeof cmd);
	memcpy(cmd, "true ", 5);
	cmd[5 + 190] = '\0';	/* "args = " and 190: 197, fits */
	cmds[0] = cmd;
	cmds[1] = "true";
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text, &cause), 0);
	suite_free(load_text(text));
	free(text);
	cmd[5 + 190] = 'y';
	cmd[5 + 192] = '\0';	/* 199: one over */
	assert_int_equal(oneline_suite(cmds, 2, NULL, 0, &text, &cause), -1);
	assert_non_null(strstr(cause, "too long for a suite line (at most 198 "
	    "characters)"));
	free(cause);
}

/* The recorded command line: each word as a shell would need it. */
static void
test_cmdline(void **state)
{
	char	*argv[] = { "orch", "run", "--out=a/b", "--", "gzip -1 x",
		    "it's", "", "$x" };
	char	*s;

	(void)state;
	s = oneline_cmdline(8, argv);
	assert_string_equal(s, "orch run --out=a/b -- 'gzip -1 x' 'it'\\''s' "
	    "'' '$x'");
	free(s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split),
		cmocka_unit_test(test_split_limit),
		cmocka_unit_test(test_roundtrip),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_long_names),
		cmocka_unit_test(test_program),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_opts),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_cmdline),
	};

	return (cmocka_run_group_tests(tests, NULL, NULL));
}
