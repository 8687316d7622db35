#include "kern.h"
static void setup(const kern_prob *pr) { kern_die("fem: not yet"); }
static void verify(const kern_prob *pr, kern_stats *st) {}
static void run(const kern_prob *pr) {}
const kern_kernel kern_fem_kernel = {"fem", setup, verify, run};
