/* dso_main.c — calls into a linked instrumented library and a dlopen'ed one (see dso_lib.c).
 *
 * Usage: dso_main [plugin.so]   (default ./libdso_plugin.so). Link with -L. -ldso_lib -ldl.
 * The dlopen'ed plugin registers its guards after the program started, so the final MODULES
 * section and the BLOCKMAP must include it. The plugin is dlclose'd before exit: its records
 * must still resolve. stdout: "expect <function> <calls>" lines.
 */
#include <dlfcn.h>
#include <stdio.h>

void dso_work(unsigned long n);

static volatile unsigned long sink;
__attribute__((noinline)) static void local_fn(unsigned long i) { sink += i; }

int main(int argc, char **argv)
{
    const char *plugin = argc > 1 ? argv[1] : "./libdso_plugin.so";
    for (unsigned long i = 0; i < 10; i++) local_fn(i);
    dso_work(300);
    void *h = dlopen(plugin, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dso_main: %s\n", dlerror());
        return 1;
    }
    void (*entry)(unsigned long) = (void (*)(unsigned long))dlsym(h, "dso_plugin_entry");
    if (!entry) {
        fprintf(stderr, "dso_main: %s\n", dlerror());
        return 1;
    }
    entry(200);
    entry(50);
    dlclose(h);
    printf("expect local_fn 10\nexpect dso_work 1\nexpect dso_leaf 300\n");
    printf("expect dso_plugin_entry 2\nexpect plugin_work 2\nexpect plugin_leaf 250\nexpect main 1\n");
    return 0;
}
