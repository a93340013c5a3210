/* dual_always_inline.c — an extern always_inline function (as QuickJS js_malloc_rt): the dual
 * plugin's separate clone F.hotprof must drop always_inline (noinline + alwaysinline is broken IR). */
extern inline __attribute__((always_inline)) int twice(int x) { return 2 * x; }
int main(int argc, char **argv) { (void)argv; return twice(argc) == 2 ? 0 : 1; }
