/* dso_lib.c — an instrumented shared library for dso_main.c, built twice:
 *   hotprof cc -shared -fPIC dso_lib.c -o libdso_lib.so                 (linked by dso_main)
 *   hotprof cc -shared -fPIC -DDSO_PLUGIN dso_lib.c -o libdso_plugin.so (dlopen'ed by dso_main)
 * The plugin build renames its functions (plugin_*) so the two modules never share a symbol;
 * both export one entry point under a fixed name for dso_main to find.
 */
#ifdef DSO_PLUGIN
#define NAME(x) plugin_##x
#else
#define NAME(x) dso_##x
#endif

static volatile unsigned long sink;

__attribute__((noinline)) static void NAME(leaf)(unsigned long i) { sink += i; }

__attribute__((noinline)) void NAME(work)(unsigned long n)
{
    for (unsigned long i = 0; i < n; i++) NAME(leaf)(i);
}

#ifdef DSO_PLUGIN
void dso_plugin_entry(unsigned long n) { plugin_work(n); }
#endif
