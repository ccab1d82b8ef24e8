#!/usr/bin/perl
# scan-commands.pl — every external command that a test, bench or CI script
# (or a Makefile recipe) runs must come from a package that the Makefile
# installs, so that `make check` and `make bench` work on a fresh machine.
#
#   perl tests/scan-commands.pl --map=tests/commands.txt \
#       --base='PKG ...' --build='PKG ...' --test='PKG ...' --bench='PKG ...' \
#       [--npm='NAME@VERSION ...'] FILE...
#
# It reads the shell scripts (and Makefile recipes) with a small shell
# lexer, finds the words in command position, and looks each one up in the
# map (tests/commands.txt: "COMMAND PACKAGE" lines). It fails, naming
# FILE:LINE, for a command that the map does not know, or whose package is
# in none of the sets that may serve that file: bench/ scripts may use the
# base, build, test and bench sets; everything else base, build and test.
# Where a mapped command is installed on this machine, dpkg must agree on
# its package (a wrong map line is caught too). One exception to Debian:
# a map line "COMMAND npm:NAME@VERSION" names a command from the npm
# registry, allowed only when NAME@VERSION is in --npm (what the Makefile
# itself installs, pinned), for the test set's files.
#
# Words that are not checked: shell keywords and builtins, functions defined
# in any scanned file, words built from variables ($X, "${cmd[@]}"), and
# relative paths (the project's own programs). Perl-base only: it runs on a
# minimal Debian root.
use strict;
use warnings;

my (%opt, @files);
for my $a (@ARGV) {
	if ($a =~ /^--(map|base|build|test|bench|npm)=(.*)$/s) { $opt{$1} = $2; }
	elsif ($a =~ /^--/) { die "scan-commands: unknown option $a\n"; }
	else { push @files, $a; }
}
die "usage: scan-commands.pl --map=FILE --base=.. --build=.. --test=.. --bench=.. FILE...\n"
    unless defined $opt{map} && @files;

my %set;	# package => set name
for my $s (qw(base build test bench)) {
	$set{$_} //= $s for split ' ', ($opt{$s} // '');
}
$set{"npm:$_"} //= 'test' for split ' ', ($opt{npm} // '');

my (%map, %mapline, %owner);
open(my $mf, '<', $opt{map}) or die "scan-commands: $opt{map}: $!\n";
while (<$mf>) {
	s/#.*//; next unless /\S/;
	my @w = split ' ';
	die "scan-commands: $opt{map}:$.: want 'COMMAND PACKAGE [OWNER-REGEX]'\n" unless @w == 2 || @w == 3;
	die "scan-commands: $opt{map}:$.: '$w[0]' listed twice\n" if exists $map{$w[0]};
	$map{$w[0]} = $w[1]; $mapline{$w[0]} = $.;
	$owner{$w[0]} = $w[2] // quotemeta($w[1]);
}
close $mf;

my %builtin = map { $_ => 1 } qw(
	. : [ alias bg bind break builtin caller cd command compgen complete
	continue declare dirs disown echo enable eval exec exit export false fc
	fg getopts hash help history jobs kill let local logout mapfile popd
	printf pushd pwd read readarray readonly return set shift shopt source
	suspend test times trap true type typeset ulimit umask unalias unset wait
);
my %keyword = map { $_ => 1 } qw(
	if then else elif fi do done while until for case esac in function select
	time ! { } [[ ]] coproc
);
# Wrappers: commands whose argument after some options is another command.
# The value is how many non-option words come before that command.
my %wrapper = (
	timeout => 1, nice => 0, env => 0, setsid => 0, stdbuf => 0,
	valgrind => 0, sudo => 0, xargs => 0, chroot => 1, taskset => 0,
	nohup => 0, unshare => 0, nsenter => 0, flock => 1, strace => 0,
	'/usr/bin/time' => 0,
);
# Options of wrappers that take a separate argument.
my %optarg = map { $_ => 1 } qw(-k -s -n -c -p -o -e -t -w -u -E -m -a -S
	--propagation --kill-after --signal);

# Pass 1: function names defined in any scanned file.
my %func;
for my $f (@files) {
	open(my $fh, '<', $f) or die "scan-commands: $f: $!\n";
	while (<$fh>) {
		$func{$2} = 1 if /^\s*(function\s+)?([A-Za-z_][A-Za-z0-9_:.-]*)\s*\(\)/;
		$func{$1} = 1 if /^\s*function\s+([A-Za-z_][A-Za-z0-9_:.-]*)/;
	}
	close $fh;
}

my @errors;
my %uses;	# command => "file:line" of its first use
my %ctx;	# command => set allowed by the file it is first seen in

sub allowed {
	my ($file) = @_;
	return $file =~ m{(^|/)bench/} ? [qw(base build test bench)] : [qw(base build test)];
}

# The lexer. It works on a whole file's text (Makefile recipes are first
# turned into shell), producing command words with their line numbers.
sub scan_text {
	my ($file, $text) = @_;
	my $line = 1;
	my @heredocs;		# terminators pending at the end of this line
	my $expect = 1;		# the next word is in command position
	my @stack;		# saved $expect across $( ... ) and ( ... )
	my $skip_words = 0;	# words to pass over (wrapper operands)
	my $wrapper_opts = 0;	# inside a wrapper's options
	my $state = '';		# '', 'for', 'case-subject', 'case-pat', '[['
	my @casestack;
	my $redirect = 0;	# the next word is a redirection's target
	my $after_cmd_v = 0;

	my $word = sub {
		my ($w, $ln) = @_;
		if ($redirect) { $redirect = 0; return; }
		# A program named by its absolute path anywhere (LAB_SSHD=/usr/sbin/sshd).
		while ($w =~ m{(?:^|[=:\-"'])/(?:usr/)?s?bin/([A-Za-z0-9_.+-]+)}g) {
			check($file, $ln, $1);
		}
		if ($state eq 'for') { $state = '' if $w eq 'do'; $expect = 1 if $w eq 'do'; return; }
		if ($state eq '[[') { $state = '' if $w eq ']]'; return; }
		if ($state eq 'case-subject') { $state = 'case-pat' if $w eq 'in'; return; }
		if ($state eq 'case-pat') {
			if ($w eq 'esac') { $state = pop(@casestack) // ''; $expect = 0; }
			return;
		}
		if ($after_cmd_v) {
			# `command -v X`: X is looked for, so it is used somewhere.
			$after_cmd_v = 0; $expect = 0;
			(my $n = $w) =~ s/^["']|["']$//g;
			check($file, $ln, $n) if $n =~ /^[A-Za-z_][A-Za-z0-9_.+-]*$/ &&
			    !$builtin{$n} && !$func{$n};
			return;
		}
		return unless $expect;
		if ($wrapper_opts) {
			if ($w =~ /^-/) {
				$skip_words = 1 if $optarg{$w};
				return;
			}
			if ($skip_words > 0) { $skip_words--; return; }
			if ($w =~ /^[A-Za-z_][A-Za-z0-9_]*=/) { return; }
			if ($wrapper_opts > 1) { $wrapper_opts--; return; }	# an operand
			if ($w =~ /^[0-9]/) { return; }	# a CPU mask
			$wrapper_opts = 0;
		}
		if ($w =~ /^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=/) { return; }	# assignment
		if ($keyword{$w}) {
			if ($w eq 'for' || $w eq 'select') { $state = 'for'; }
			elsif ($w eq '[[') { $state = '[['; }
			elsif ($w eq 'case') { push @casestack, $state; $state = 'case-subject'; }
			elsif ($w eq 'function') { $expect = 0; }
			elsif ($w eq 'fi' || $w eq 'done' || $w eq 'esac' || $w eq '}') { $expect = 0; }
			return;
		}
		$expect = 0;
		if ($w eq 'command') {
			$expect = 1;	# `command X` runs X; `command -v X` does not
			return;
		}
		if ($w eq '-v' || $w eq '-V') { $after_cmd_v = 1; return; }
		if ($w eq 'exec') { $expect = 1; return; }
		return if $builtin{$w} || $func{$w};
		return if $w =~ /[\$`]/;		# built from variables
		return if $w =~ m{^[^/]+/} || $w =~ m{^\./};	# relative path: ours
		return if $w =~ /^[-+%0-9]/ || $w eq '';
		my $name = $w;
		if ($w =~ m{^/}) {
			$name = $w eq '/usr/bin/time' ? 'time' : ($w =~ m{([^/]+)$})[0];
		}
		check($file, $ln, $name);
		my $wk = $w =~ m{^/} ? $w : $name;
		if (exists $wrapper{$wk}) {
			$expect = 1;
			$wrapper_opts = 1 + $wrapper{$wk};
			$skip_words = 0;
		} elsif ($name eq 'ip') {
			$state = 'ip';
		}
	};

	my $len = length $text;
	my $i = 0;
	my $cur = '';		# the word being read
	my $curline = 1;
	my $dq = 0;		# inside "..."
	my $flush = sub {
		if ($cur ne '') {
			my $w = $cur; $cur = '';
			if ($state eq 'ip') {
				# ip [-n NS] netns exec NS CMD...: the command after NS
				if ($w eq 'exec') { $state = 'ip-exec'; }
				return;
			}
			if ($state eq 'ip-exec') { $state = ''; $expect = 1; return; }
			$word->($w, $curline);
		}
	};
	while ($i < $len) {
		my $c = substr($text, $i, 1);
		if ($c eq "\n") {
			$flush->();
			$line++;
			if (@heredocs) {
				# Skip the here-documents' bodies.
				for my $t (@heredocs) {
					while ($i < $len) {
						my $e = index($text, "\n", $i + 1);
						$e = $len if $e < 0;
						my $l = substr($text, $i + 1, $e - $i - 1);
						$i = $e; $line++;
						last if $l =~ /^\t*\Q$t\E\s*$/;
					}
				}
				@heredocs = ();
			}
			$state = '' if $state eq 'ip' || $state eq 'ip-exec';
			$wrapper_opts = 0;
			$redirect = 0;
			$expect = 1 unless $state eq 'case-pat' || $state eq 'case-subject';
			$i++;
			next;
		}
		if ($c eq '\\') {
			if (substr($text, $i + 1, 1) eq "\n") { $i += 2; $line++; next; }
			$cur .= substr($text, $i, 2); $i += 2; next;
		}
		if ($c eq "'") {
			my $e = index($text, "'", $i + 1);
			$e = $len - 1 if $e < 0;
			my $s = substr($text, $i, $e - $i + 1);
			$curline = $line if $cur eq '';
			$line += ($s =~ tr/\n//);
			$cur .= $s; $i = $e + 1; next;
		}
		if ($c eq '"') {
			# Scan inside for $( and `; the word stays one word.
			$curline = $line if $cur eq '';
			my $j = $i + 1;
			my $s = '"';
			while ($j < $len) {
				my $d = substr($text, $j, 1);
				if ($d eq '\\') { $s .= substr($text, $j, 2); $j += 2; next; }
				last if $d eq '"';
				if ($d eq "\n") { $line++; }
				if ($d eq '$' && substr($text, $j + 1, 1) eq '(' &&
				    substr($text, $j + 2, 1) ne '(') {
					# A command substitution inside a string.
					my ($end, $inner) = balanced($text, $j + 1);
					my $saved = [$expect, $state, $wrapper_opts, $redirect];
					scan_sub($file, $inner, $line);
					$line += ($inner =~ tr/\n//);
					($expect, $state, $wrapper_opts, $redirect) = @$saved;
					$s .= '$(...)'; $j = $end + 1; next;
				}
				$s .= $d; $j++;
			}
			$cur .= $s . '"'; $i = $j + 1; next;
		}
		if ($c eq '`') {
			my $e = index($text, '`', $i + 1);
			$e = $len - 1 if $e < 0;
			my $inner = substr($text, $i + 1, $e - $i - 1);
			scan_sub($file, $inner, $line);
			$line += ($inner =~ tr/\n//);
			$cur .= '$(...)'; $i = $e + 1; next;
		}
		if ($c eq '$' && substr($text, $i + 1, 2) eq '((') {
			my ($end) = balanced($text, $i + 1);
			my $s = substr($text, $i, $end - $i + 1);
			$line += ($s =~ tr/\n//);
			$cur .= '$((...))'; $i = $end + 1; next;
		}
		if ($c eq '$' && substr($text, $i + 1, 1) eq '(') {
			my ($end, $inner) = balanced($text, $i + 1);
			$curline = $line if $cur eq '';
			scan_sub($file, $inner, $line);
			$line += ($inner =~ tr/\n//);
			$cur .= '$(...)'; $i = $end + 1; next;
		}
		if ($c eq '$' && substr($text, $i + 1, 1) eq '{') {
			my $e = index($text, '}', $i);
			$e = $len - 1 if $e < 0;
			$curline = $line if $cur eq '';
			$cur .= substr($text, $i, $e - $i + 1); $i = $e + 1; next;
		}
		if ($c eq '#' && $cur eq '') {
			my $e = index($text, "\n", $i);
			$e = $len if $e < 0;
			$i = $e; next;
		}
		if ($c =~ /[ \t]/) { $flush->(); $i++; next; }
		if ($c eq '(' && substr($text, $i + 1, 1) eq '(' && $cur eq '' && $expect &&
		    $state ne 'for') {
			# (( arithmetic )): no command inside.
			my ($end) = balanced($text, $i);
			my $s = substr($text, $i, $end - $i + 1);
			$line += ($s =~ tr/\n//);
			$i = $end + 1; $expect = 0; next;
		}
		if ($c =~ /[|&;()<>]/) {
			# `{fd}>>file`, `2>&1`: a word that is a file descriptor.
			if (($c eq '<' || $c eq '>') && $cur =~ /^(\d+|\{[A-Za-z_]\w*\})$/) { $cur = ''; }
			$flush->();
			my $op = $c;
			my $n2 = substr($text, $i, 2);
			my $n3 = substr($text, $i, 3);
			if ($n3 eq '<<<') { $op = '<<<'; }
			elsif ($n2 =~ /^(\|\||&&|;;|<<|>>|&>|>&|<&|\|&|;&)$/) { $op = $n2; }
			$op = '&>>' if substr($text, $i, 3) eq '&>>';
			$i += length $op;
			next if $state eq 'for' || $state eq '[[';
			if ($op eq '<<') {
				$i++ if substr($text, $i, 1) eq '-';
				# The terminator: a word, maybe quoted.
				substr($text, $i) =~ /^\s*(['"]?)([A-Za-z_0-9]+)\1/;
				push @heredocs, $2 if defined $2;
				$i += length($&) if defined $2;
				next;
			}
			if ($op =~ /^(<|>|>>|&>|&>>|<<<)$/) { $redirect = 1; next; }
			if ($op eq '>&' || $op eq '<&') {
				# >&2, >&-: a descriptor, not a file word.
				if (substr($text, $i) =~ /^(\d+|-)/) { $i += length $1; } else { $redirect = 1; }
				next;
			}
			if ($state eq 'case-pat') {
				if ($op eq ')') { $state = 'case-body'; $expect = 1; }
				next;
			}
			if ($state eq 'case-body' && ($op eq ';;' || $op eq ';&')) {
				$state = 'case-pat'; next;
			}
			if ($op eq ')') { $expect = 0; next; }
			$state = '' if $state eq 'ip' || $state eq 'ip-exec';
			$wrapper_opts = 0;
			$expect = 1;
			next;
		}
		$curline = $line if $cur eq '';
		$cur .= $c; $i++;
	}
	$flush->();
}

# Scans the text of a command substitution as a script of its own.
sub scan_sub {
	my ($file, $inner, $line) = @_;
	scan_text_at($file, $inner, $line);
}

sub scan_text_at {
	my ($file, $text, $line) = @_;
	# Prefix newlines so line numbers line up.
	scan_text($file, ("\n" x ($line - 1)) . $text);
}

# balanced(TEXT, I): TEXT[I] is '('; returns the index of the matching ')'
# and the text between (quotes respected).
sub balanced {
	my ($text, $i) = @_;
	my $depth = 0;
	my $len = length $text;
	my $j = $i;
	while ($j < $len) {
		my $c = substr($text, $j, 1);
		if ($c eq '\\') { $j += 2; next; }
		if ($c eq "'") { my $e = index($text, "'", $j + 1); $j = $e < 0 ? $len : $e + 1; next; }
		if ($c eq '(') { $depth++; }
		elsif ($c eq ')') { $depth--; return ($j, substr($text, $i + 1, $j - $i - 1)) if $depth == 0; }
		$j++;
	}
	return ($len - 1, substr($text, $i + 1));
}

sub check {
	my ($file, $line, $name) = @_;
	return if $name !~ /^[A-Za-z_][A-Za-z0-9_.+-]*$/;
	$uses{$name} //= "$file:$line";
	my $pkg = $map{$name};
	if (!defined $pkg) {
		push @errors, "$file:$line: '$name' is not in $opt{map}: add 'COMMAND DEBIAN-PACKAGE' and put the package in a set of the Makefile";
		$map{$name} = '?';
		return;
	}
	return if $pkg eq '?';
	my $ok = 0;
	for my $s (@{allowed($file)}) { $ok = 1 if ($set{$pkg} // '') eq $s; }
	return if $ok;
	my $where = defined $set{$pkg} ? "only in the $set{$pkg} set" : 'in no set';
	push @errors, "$file:$line: '$name' comes from package $pkg, which is $where of the Makefile (BASE_DEBS BUILD_DEBS TEST_DEBS BENCH_DEBS)";
}

for my $f (@files) {
	open(my $fh, '<', $f) or die "scan-commands: $f: $!\n";
	local $/;
	my $text = <$fh>;
	close $fh;
	if ($f =~ m{(^|/)(Makefile|[^/]+\.mk)$}) {
		# Recipe lines only, make's variables and @/- prefixes removed.
		my @out;
		my $cont = 0;	# the line continues a variable's definition
		for my $l (split /\n/, $text, -1) {
			my $was = $cont;
			$cont = $l =~ /\\$/ ? ($l =~ /^\t/ ? $was : 1) : 0;
			if ($l =~ /^\t/ && !$was) {
				$l =~ s/^\t[@+-]*//;
				$l =~ s/\$\$/\$/g;
				$l =~ s/\$\(([A-Za-z0-9_]+)\)/\${$1}/g;
				$l =~ s/\$\((shell|wildcard|patsubst|filter)[^)]*\)/\${x}/g;
				$l =~ s/\$[@<^*?]/\${x}/g;
				push @out, $l;
			} else {
				push @out, '';
			}
		}
		$text = join("\n", @out);
	}
	scan_text($f, $text);
}

# dpkg's word on the mapped commands that are installed here (one query).
if (-x '/usr/bin/dpkg-query' || -x '/bin/dpkg-query') {
	my (%paths, %cands);
	for my $name (sort keys %uses) {
		my $pkg = $map{$name};
		next if !defined $pkg || $pkg eq '?';
		for my $d (split /:/, "$ENV{PATH}:/usr/sbin:/sbin") {
			if (-x "$d/$name" && !-d "$d/$name") { $paths{$name} = "$d/$name"; last; }
		}
		next unless defined $paths{$name};
		my %c;
		for my $p ($paths{$name}, readlink_all($paths{$name})) {
			(my $short = $p) =~ s{^/usr/}{/};
			$c{$short} = 1; $c{"/usr$short"} = 1;
		}
		$cands{$name} = [sort keys %c];
	}
	my %owners;	# path => [packages]
	my @all = map { @$_ } values %cands;
	open(my $err, '>&', \*STDERR) or die;
	open(STDERR, '>', '/dev/null') or die;	# "no path found" for most candidates
	my $opened = @all && open(my $q, '-|', 'dpkg-query', '-S', @all);
	open(STDERR, '>&', $err) or die;
	if ($opened) {
		while (<$q>) {
			chomp;
			next if /^diversion/;
			my ($pk, $p) = /^(.+?): (\/.*)$/ or next;
			push @{$owners{$p}}, map { (my $x = $_) =~ s/:.*//; $x } split /, /, $pk;
		}
		close $q;
	}
	for my $name (sort keys %cands) {
		my @o = map { @{$owners{$_} // []} } @{$cands{$name}};
		next unless @o;	# a file no package owns (installed by hand)
		next if grep { /^(?:$owner{$name})$/ } @o;
		my %u = map { $_ => 1 } @o;
		push @errors, "$opt{map}:$mapline{$name}: '$name' ($paths{$name}) belongs to " .
		    join(', ', sort keys %u) . " here, not $map{$name} (first used at $uses{$name})";
	}
}

sub readlink_all {
	my ($p) = @_;
	for (1 .. 20) {
		my $l = readlink $p;
		last unless defined $l;
		if ($l !~ m{^/}) { (my $d = $p) =~ s{/[^/]*$}{}; $l = "$d/$l"; }
		$p = $l;
	}
	1 while $p =~ s{/[^/]+/\.\./}{/};
	return $p;
}

if (@errors) {
	my %seen;
	print STDERR "scan-commands: $_\n" for grep { !$seen{$_}++ } @errors;
	print STDERR "scan-commands: " . scalar(keys %seen) . " problem(s)\n";
	exit 1;
}
printf "scan-commands: %d commands in %d files, each from a package the Makefile installs\n",
    scalar(keys %uses), scalar(@files);
exit 0;
