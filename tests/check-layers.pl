#!/usr/bin/perl
# check-layers: every #include of the two programs points down their
# layers (docs/architecture.md), and no two files include each other
# through any path.
#
#   perl tests/check-layers.pl [--root DIR]
#
# The coordinator's layers, from the top: cli > run > report > analysis >
# store > hosts > input, then proto/, which both programs share. A file
# may include its own layer's headers and those of any layer below it;
# coordinator/*.c at the top (main.c) may include any. agent/ includes
# agent/ and proto/ only; proto/ includes proto/ only; neither program
# includes the other. A circle is two files (a .c and its .h counted as
# one) that reach each other through includes, in any layer.
# Prints FILE:LINE: what is wrong, for each finding; exits 1 on any.
use strict;
use warnings;

my @ORDER = qw(input hosts store analysis report run cli);
my $root = '.';
if (@ARGV >= 2 && $ARGV[0] eq '--root') {
	$root = $ARGV[1];
	splice(@ARGV, 0, 2);
}
die "usage: check-layers.pl [--root DIR]\n" if @ARGV;
chdir $root or die "check-layers: $root: $!\n";

my %rank;
@rank{@ORDER} = (1 .. @ORDER);

# The layer of a path: [program, rank]; the top of coordinator/ ranks
# above cli.
sub layer {
	my ($p) = @_;
	return ['proto', 0] if $p =~ m{^proto/};
	return ['agent', 1] if $p =~ m{^agent/};
	if ($p =~ m{^coordinator/([^/]+)/}) {
		return ['coordinator', $rank{$1}] if exists $rank{$1};
		return ['coordinator', undef];
	}
	return ['coordinator', scalar(@ORDER) + 1] if $p =~ m{^coordinator/[^/]+$};
	return [undef, undef];
}

sub files {
	my @out;
	my @dirs = ('coordinator', 'agent', 'proto');
	while (my $d = shift @dirs) {
		opendir(my $dh, $d) or die "check-layers: $d: $!\n";
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

my $bad = 0;
my %edges;	# module -> { module -> "file:line" }
for my $f (files()) {
	my $l = layer($f);
	if ($l->[0] eq 'coordinator' && !defined $l->[1]) {
		print "$f:1: coordinator/ has no layer '" .
		    ($f =~ m{^coordinator/([^/]+)/} ? $1 : '?') .
		    "' (the layers: @ORDER)\n";
		$bad = 1;
		next;
	}
	open(my $fh, '<', $f) or die "check-layers: $f: $!\n";
	(my $from = $f) =~ s/\.[ch]$//;
	while (my $line = <$fh>) {
		next unless $line =~ /^\s*#\s*include\s+"([^"]+)"/;
		my $inc = $1;
		my $at = "$f:$.";
		if (!-f $inc) {
			print "$at: includes \"$inc\", which is not a file of the tree (includes name their path from the top)\n";
			$bad = 1;
			next;
		}
		my $t = layer($inc);
		my $why;
		if ($l->[0] eq 'proto' && $t->[0] ne 'proto') {
			$why = "proto/ includes proto/ only";
		} elsif ($l->[0] eq 'agent' && $t->[0] ne 'agent' && $t->[0] ne 'proto') {
			$why = "the agent includes agent/ and proto/ only";
		} elsif ($l->[0] eq 'coordinator' && $t->[0] eq 'agent') {
			$why = "the coordinator never includes the agent";
		} elsif ($l->[0] eq 'coordinator' && $t->[0] eq 'coordinator' &&
		    defined $t->[1] && $t->[1] > $l->[1]) {
			my ($a) = $f =~ m{^coordinator/([^/]+)/};
			my ($b) = $inc =~ m{^coordinator/([^/]+)/};
			$why = "layer '$b' is above layer '$a' (@{[join ' > ', reverse @ORDER]})";
		}
		if (defined $why) {
			print "$at: includes \"$inc\", upward: $why\n";
			$bad = 1;
		}
		(my $to = $inc) =~ s/\.[ch]$//;
		$edges{$from}{$to} //= $at if $to ne $from;
	}
	close $fh;
}

# Circles: Tarjan's strongly connected components over modules.
my (%index, %low, %on, @stack, @sccs);
my $n = 0;
sub visit {
	my ($v) = @_;
	$index{$v} = $low{$v} = $n++;
	push @stack, $v;
	$on{$v} = 1;
	for my $w (sort keys %{$edges{$v} // {}}) {
		if (!exists $index{$w}) {
			visit($w);
			$low{$v} = $low{$w} if $low{$w} < $low{$v};
		} elsif ($on{$w}) {
			$low{$v} = $index{$w} if $index{$w} < $low{$v};
		}
	}
	if ($low{$v} == $index{$v}) {
		my @c;
		my $w;
		do {
			$w = pop @stack;
			$on{$w} = 0;
			push @c, $w;
		} while ($w ne $v);
		push @sccs, [sort @c] if @c > 1;
	}
}
visit($_) for grep { !exists $index{$_} } sort keys %edges;
for my $c (@sccs) {
	my %in = map { $_ => 1 } @$c;
	print "circle of " . scalar(@$c) . " files: @$c\n";
	for my $v (@$c) {
		for my $w (sort keys %{$edges{$v}}) {
			print "  $edges{$v}{$w}: $v -> $w\n" if $in{$w};
		}
	}
	$bad = 1;
}
exit($bad);
