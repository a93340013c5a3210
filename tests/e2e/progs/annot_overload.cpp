// annot_overload.cpp — C++ names for `hotprof annotate` (test_annotate.sh): two overloads of
// ns::step (a name alone is ambiguous) and ns::only (unique, so "ns::only" finds "ns::only(int)").
#include <cstdio>
#include <cstdlib>

namespace ns {
__attribute__((noinline)) int step(int x)
{
    int s = 0;
    for (int i = 0; i < x; i++) s += i * 3;
    return s;
}

__attribute__((noinline)) double step(double x)
{
    double s = 0;
    for (int i = 0; i < 100; i++) s += x * i;
    return s;
}

__attribute__((noinline)) int only(int x) { return step(x) + 1; }
} // namespace ns

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    long t = 0;
    for (int i = 0; i < n; i++) t += ns::only(i % 50) + (long)ns::step((double)i);
    printf("%ld\n", t);
    return 0;
}
