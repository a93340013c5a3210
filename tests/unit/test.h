/* test.h — the unit-test harness: a header-only runner with no dependencies.
 *
 * A test file defines functions with TEST(name) and lists them in main() through RUN(name).
 * CHECK(cond) records a failure (with file:line and the condition) and lets the test continue;
 * REQUIRE(cond) records it and returns from the test. CHECK_EQ_U64 / CHECK_NEAR print both sides.
 * test_main_end() prints "N passed, N failed" (tests, not checks) and returns the exit status.
 * Invariant: a test that executed no CHECK at all counts as failed ("asserts nothing").
 */
#ifndef HOTPROF_TEST_H
#define HOTPROF_TEST_H
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int test_checks_in_current;
static int test_current_failed;
static int test_passed_count;
static int test_failed_count;

#define TEST(name) static void name(void)

#define CHECK(cond)                                                                     \
    do {                                                                                \
        test_checks_in_current++;                                                       \
        if (!(cond)) {                                                                  \
            test_current_failed = 1;                                                    \
            fprintf(stderr, "  %s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);  \
        }                                                                               \
    } while (0)

#define REQUIRE(cond)                                                                   \
    do {                                                                                \
        CHECK(cond);                                                                    \
        if (!(cond)) return;                                                            \
    } while (0)

#define CHECK_EQ_U64(a, b)                                                              \
    do {                                                                                \
        uint64_t test_a_ = (uint64_t)(a), test_b_ = (uint64_t)(b);                      \
        test_checks_in_current++;                                                       \
        if (test_a_ != test_b_) {                                                       \
            test_current_failed = 1;                                                    \
            fprintf(stderr, "  %s:%d: %s == %s failed: %" PRIu64 " != %" PRIu64 "\n",   \
                    __FILE__, __LINE__, #a, #b, test_a_, test_b_);                      \
        }                                                                               \
    } while (0)

#define CHECK_NEAR(a, b, tol)                                                           \
    do {                                                                                \
        double test_a_ = (double)(a), test_b_ = (double)(b);                            \
        test_checks_in_current++;                                                       \
        if (!(fabs(test_a_ - test_b_) <= (double)(tol))) {                              \
            test_current_failed = 1;                                                    \
            fprintf(stderr, "  %s:%d: |%s - %s| <= %g failed: %.9g vs %.9g\n",         \
                    __FILE__, __LINE__, #a, #b, (double)(tol), test_a_, test_b_);       \
        }                                                                               \
    } while (0)

#define RUN(name)                                                                       \
    do {                                                                                \
        test_checks_in_current = 0;                                                     \
        test_current_failed = 0;                                                        \
        name();                                                                         \
        if (test_checks_in_current == 0) {                                              \
            test_current_failed = 1;                                                    \
            fprintf(stderr, "  %s: asserted nothing\n", #name);                         \
        }                                                                               \
        if (test_current_failed) {                                                      \
            test_failed_count++;                                                        \
            printf("FAIL %s\n", #name);                                                 \
        } else {                                                                        \
            test_passed_count++;                                                        \
            printf("ok   %s\n", #name);                                                 \
        }                                                                               \
        fflush(stdout);                                                                 \
    } while (0)

static inline int test_main_end(void)
{
    printf("%d passed, %d failed\n", test_passed_count, test_failed_count);
    return test_failed_count ? 1 : 0;
}

#endif
