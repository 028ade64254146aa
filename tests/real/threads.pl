# Perl ithreads for check-real: threads::shared locks, cond_wait/cond_signal,
# Thread::Queue and Thread::Semaphore, deterministic totals.
use strict; use warnings;
use threads; use threads::shared; use Thread::Queue; use Thread::Semaphore;
my $count :shared = 0;
my @t = map { threads->create(sub { for (1 .. 5000) { lock($count); $count++ } }) } 1 .. 4;
$_->join for @t;
print "count $count\n";
my $q = Thread::Queue->new;
my $sum :shared = 0;
my @w = map { threads->create(sub { while (defined(my $i = $q->dequeue)) { lock($sum); $sum += $i * $i } }) } 1 .. 3;
$q->enqueue($_) for 1 .. 3000;
$q->end;
$_->join for @w;
print "sum $sum\n";
my $sem = Thread::Semaphore->new(2);
my $turn :shared = 0;
my @p = map { my $k = $_; threads->create(sub {
    for my $r (0 .. 49) {
        { lock($turn); cond_wait($turn) until $turn % 3 == $k; $turn++; cond_broadcast($turn) }
        $sem->down; { lock($count); $count++ } $sem->up;
    }
}) } 0 .. 2;
$_->join for @p;
print "turns $turn count $count\n";
exit 5;
