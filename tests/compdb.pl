#!/usr/bin/perl
# compdb: compile_commands.json (the JSON compilation database that clangd
# and other tools read) from the commands make would run.
#
#   make -n -B TARGET... | perl tests/compdb.pl DIR > compile_commands.json
#
# DIR is the directory the commands run in (the repository root). Each
# command line that compiles a .c file of the tree (a "-c FILE.c" object,
# or a program built from one FILE.c) becomes one entry: the command as
# make gives it, the file and, where it says, the output. The first entry
# for a file wins. Exits 1 when no command compiles anything.
use strict;
use warnings;

die "usage: compdb.pl DIR < make-n-output\n" unless @ARGV == 1;
my $dir = $ARGV[0];

# A JSON string.
sub js {
	my ($s) = @_;
	$s =~ s/(["\\])/\\$1/g;
	$s =~ s/\t/\\t/g;
	$s =~ s/([\x00-\x1f])/sprintf('\\u%04x', ord($1))/ge;
	return "\"$s\"";
}

my (@out, %seen);
my $line = '';
while (my $l = <STDIN>) {
	chomp $l;
	# A command continued on the next line (a backslash at its end).
	if ($l =~ s/\\$//) {
		$line .= $l;
		next;
	}
	$line .= $l;
	my $cmd = $line;
	$line = '';
	# A recipe's fallback ("cc ... || { ...; cc ...; }") is not the build.
	$cmd =~ s/\s+\|\|\s.*$//;
	my @w = split ' ', $cmd;
	next unless @w && $w[0] =~ m{(^|/)(cc|gcc|clang|c99)(-[0-9.]+)?$};
	my @src = grep { m{^[\w./+-]+\.c$} && !m{^/} } @w;
	next unless @src == 1;
	my $file = $src[0];
	next if $seen{$file}++;
	my ($obj) = $cmd =~ /\s-o\s+(\S+)/;
	my $e = "  {\n    \"directory\": " . js($dir) .
	    ",\n    \"command\": " . js(join(' ', @w)) .
	    ",\n    \"file\": " . js($file);
	$e .= ",\n    \"output\": " . js($obj) if defined $obj;
	push @out, "$e\n  }";
}
die "compdb: no compile command in make's output\n" unless @out;
print "[\n" . join(",\n", @out) . "\n]\n";
