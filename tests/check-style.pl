#!/usr/bin/perl
# check-style: the house style (HACKING.md) of every .c and .h under
# coordinator/, agent/ and proto/, as far as a machine can tell it:
#
#   - a line is at most 80 columns, a tab counting to the next multiple
#     of 8 and a UTF-8 character as one column;
#   - no blank (space or tab) ends a line;
#   - no space comes before a tab in a line's indentation;
#   - each block of #include "..." lines is sorted;
#   - a function definition's name starts its line (column 0) and its
#     return type is the line before: "static int\nname(void)\n{";
#   - return's value is in parentheses: "return (x);".
#
#   perl tests/check-style.pl [--root DIR]
#
# Prints FILE:LINE: why, for each finding; exits 1 on any. No line is
# exempt: what breaks a rule is fixed.
use strict;
use warnings;

binmode(STDOUT, ':utf8');
binmode(STDERR, ':utf8');

my $MAX = 80;
my $root = '.';
while (@ARGV) {
	if (@ARGV >= 2 && $ARGV[0] eq '--root') {
		$root = $ARGV[1];
		splice(@ARGV, 0, 2);
	} else {
		die "usage: check-style.pl [--root DIR]\n";
	}
}
chdir $root or die "check-style: $root: $!\n";

sub files {
	my @out;
	my @dirs = ('coordinator', 'agent', 'proto');
	while (my $d = shift @dirs) {
		opendir(my $dh, $d) or die "check-style: $d: $!\n";
		for my $e (sort readdir $dh) {
			next if $e =~ /^\./;
			my $p = "$d/$e";
			if (-d $p) {
				push @dirs, $p;
			} elsif ($e =~ /\.[ch]$/) {
				push @out, $p;
			}
		}
		closedir $dh;
	}
	return @out;
}

# The columns a line takes: tabs to the next multiple of 8.
sub columns {
	my ($s) = @_;
	my $col = 0;
	for my $ch (split //, $s) {
		$col = $ch eq "\t" ? ($col & ~7) + 8 : $col + 1;
	}
	return $col;
}

my $bad = 0;

# Prints one finding.
sub finding {
	my ($f, $n, $why) = @_;
	print "$f:$n: $why\n";
	$bad = 1;
}

# The code of each line with comments and the insides of string and
# character literals blanked, so that the rules on code do not look in
# them; a preprocessor line is kept out too.
sub code_lines {
	my (@l) = @_;
	my @code;
	my $incomment = 0;
	for my $t (@l) {
		my $out = '';
		my $i = 0;
		my $len = length $t;
		if (!$incomment && $t =~ /^\s*#/) {
			push @code, '';
			next;
		}
		while ($i < $len) {
			my $c = substr($t, $i, 1);
			my $two = substr($t, $i, 2);
			if ($incomment) {
				if ($two eq '*/') {
					$incomment = 0;
					$i += 2;
				} else {
					$i++;
				}
				$out .= ' ';
			} elsif ($two eq '/*') {
				$incomment = 1;
				$i += 2;
				$out .= ' ';
			} elsif ($two eq '//') {
				last;
			} elsif ($c eq '"' || $c eq "'") {
				my $q = $c;
				$out .= $q;
				$i++;
				while ($i < $len && substr($t, $i, 1) ne $q) {
					$i += substr($t, $i, 1) eq '\\' ? 2 : 1;
				}
				$out .= $q;
				$i++;
			} else {
				$out .= $c;
				$i++;
			}
		}
		push @code, $out;
	}
	return @code;
}

for my $f (files()) {
	open(my $fh, '<:utf8', $f) or die "check-style: $f: $!\n";
	my @l = <$fh>;
	close $fh;
	chomp @l;
	my @code = code_lines(@l);
	my ($prev_inc, $prev_at) = (undef, -2);
	for my $i (0 .. $#l) {
		my $t = $l[$i];
		my $n = $i + 1;

		my $cols = columns($t);
		if ($cols > $MAX) {
			finding($f, $n, "$cols columns, over $MAX (a tab to " .
			    "the next multiple of 8)");
		}
		if ($t =~ /[ \t]$/) {
			finding($f, $n, "a blank ends the line");
		}
		if ($t =~ /^\s* \t/) {
			finding($f, $n, "a space before a tab in the " .
			    "indentation");
		}

		if ($t =~ /^\s*#\s*include\s+"([^"]+)"/) {
			my $inc = $1;
			if ($prev_at == $i - 1 && defined $prev_inc &&
			    $prev_inc gt $inc) {
				finding($f, $n, "#include \"$inc\" after " .
				    "\"$prev_inc\": a block of #include " .
				    "\"...\" lines is sorted");
			}
			($prev_inc, $prev_at) = ($inc, $i);
		} else {
			($prev_inc, $prev_at) = (undef, -2);
		}

		# A function definition: its { at column 0; its header the
		# lines above, back to the one at column 0 (the parameters
		# may go on indented lines).
		if ($t =~ /^\{/) {
			my $j = $i - 1;
			$j-- while $j > 0 && $l[$j] =~ /^\s/;
			my $h = $l[$j];
			my $r = $j > 0 ? $l[$j - 1] : '';
			if ($h !~ /^[A-Za-z_]\w*\s*\(/) {
				finding($f, $j + 1, "a function's name starts " .
				    "its line (column 0), its return type on " .
				    "the line before");
			} elsif ($r !~ /^[A-Za-z_]/ || $r =~ /[;{},]\s*$/ ||
			    $r =~ m{^\s*(/\*|\*)}) {
				finding($f, $j + 1, "a function's return type " .
				    "is the line before its name");
			}
		}
		if ($code[$i] =~ /^[A-Za-z_][^;=]*\([^;]*\)\s*\{\s*$/ &&
		    $code[$i] !~ /^(struct|union|enum)\b/) {
			finding($f, $n, "a function's { is alone on the line " .
			    "after its name");
		}

		if ($code[$i] =~ /\breturn\b\s*([^\s(;])/) {
			finding($f, $n, "return's value in parentheses: " .
			    "return (x);");
		}
	}
}

exit($bad);
