/*
 * nbody.c - molecular-dynamics workload: Lennard-Jones fluid (SPEC-like FP).
 *
 * Holds: N particles started on an fcc lattice in a periodic cubic box
 * (reduced units, density 0.8), random velocities with zero total momentum
 * scaled to temperature 1; velocity-Verlet integration; pair forces of a
 * truncated and shifted LJ potential (cutoff 2.5) with the minimum-image
 * convention, the pair law reached through a function pointer.
 *
 * Checks: total energy drifts by less than a relative bound over the run;
 * total momentum stays zero to rounding; the potential energy accumulated by
 * the force loop (i<j pairs) equals an independent recomputation that sums
 * every ordered pair (i != j) and halves it. Prints "ok <checksum>" and exits
 * 0, or an error and exits 1.
 *
 * Usage: nbody [size]   size = number of time steps.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CELLS 4
#define NPART (4 * CELLS * CELLS * CELLS)
#define DENSITY 0.8
#define RCUT 2.5
#define DT 0.002
#define DEFAULT_STEPS 3500
#define DRIFT_BOUND 2e-4
#define CHECK_EVERY 250

typedef struct { double x, y, z; } vec;
typedef struct { double energy, fscale; } pairval;     /* force = fscale * r */
typedef pairval (*pair_law)(double r2);
typedef struct { vec pos[NPART], vel[NPART], force[NPART]; double box, epot; pair_law law; } system_t;

static uint64_t rng_state = 0x243f6a8885a308d3ull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(void) { return (double)(rng_next() >> 11) / 9007199254740992.0; }

static vec v_sub(vec a, vec b) { return (vec){ a.x - b.x, a.y - b.y, a.z - b.z }; }
static vec v_scale(vec a, double s) { return (vec){ a.x * s, a.y * s, a.z * s }; }
static vec v_add(vec a, vec b) { return (vec){ a.x + b.x, a.y + b.y, a.z + b.z }; }
static double v_dot(vec a, vec b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

static double lj_raw(double r2)
{
    double s6 = 1.0 / (r2 * r2 * r2);
    return 4.0 * (s6 * s6 - s6);
}

/* Truncated and shifted Lennard-Jones: energy and force/r at squared distance r2. */
static pairval lennard_jones(double r2)
{
    if (r2 >= RCUT * RCUT)
        return (pairval){ 0, 0 };
    double s6 = 1.0 / (r2 * r2 * r2);
    return (pairval){ lj_raw(r2) - lj_raw(RCUT * RCUT), 24.0 * (2.0 * s6 * s6 - s6) / r2 };
}

static double wrap(double d, double box) { return d - box * nearbyint(d / box); }

static vec min_image(vec a, vec b, double box)
{
    vec d = v_sub(a, b);
    return (vec){ wrap(d.x, box), wrap(d.y, box), wrap(d.z, box) };
}

static void compute_forces(system_t *s)
{
    s->epot = 0;
    for (int i = 0; i < NPART; i++)
        s->force[i] = (vec){ 0, 0, 0 };
    for (int i = 0; i < NPART; i++) {
        for (int j = i + 1; j < NPART; j++) {
            vec d = min_image(s->pos[i], s->pos[j], s->box);
            pairval p = s->law(v_dot(d, d));
            s->epot += p.energy;
            s->force[i] = v_add(s->force[i], v_scale(d, p.fscale));
            s->force[j] = v_sub(s->force[j], v_scale(d, p.fscale));
        }
    }
}

/* Independent recomputation: every ordered pair, halved. */
static double potential_all_pairs(const system_t *s)
{
    double e = 0;
    for (int i = 0; i < NPART; i++)
        for (int j = 0; j < NPART; j++)
            if (i != j) {
                vec d = min_image(s->pos[j], s->pos[i], s->box);
                e += lennard_jones(v_dot(d, d)).energy;
            }
    return e / 2;
}

static double kinetic(const system_t *s)
{
    double k = 0;
    for (int i = 0; i < NPART; i++)
        k += 0.5 * v_dot(s->vel[i], s->vel[i]);
    return k;
}

static vec momentum(const system_t *s)
{
    vec p = { 0, 0, 0 };
    for (int i = 0; i < NPART; i++)
        p = v_add(p, s->vel[i]);
    return p;
}

static void init_lattice(system_t *s)
{
    static const double basis[4][3] = { { 0, 0, 0 }, { .5, .5, 0 }, { .5, 0, .5 }, { 0, .5, .5 } };
    double a = s->box / CELLS;
    int n = 0;
    for (int x = 0; x < CELLS; x++)
        for (int y = 0; y < CELLS; y++)
            for (int z = 0; z < CELLS; z++)
                for (int b = 0; b < 4; b++, n++)
                    s->pos[n] = (vec){ (x + basis[b][0] + 0.25) * a, (y + basis[b][1] + 0.25) * a,
                                       (z + basis[b][2] + 0.25) * a };
}

static void init_velocities(system_t *s, double temperature)
{
    for (int i = 0; i < NPART; i++)
        s->vel[i] = (vec){ rng_unit() - 0.5, rng_unit() - 0.5, rng_unit() - 0.5 };
    vec p = v_scale(momentum(s), 1.0 / NPART);
    for (int i = 0; i < NPART; i++)
        s->vel[i] = v_sub(s->vel[i], p);
    double scale = sqrt(1.5 * NPART * temperature / kinetic(s));
    for (int i = 0; i < NPART; i++)
        s->vel[i] = v_scale(s->vel[i], scale);
}

static void verlet_step(system_t *s)
{
    for (int i = 0; i < NPART; i++) {
        s->vel[i] = v_add(s->vel[i], v_scale(s->force[i], 0.5 * DT));
        s->pos[i] = v_add(s->pos[i], v_scale(s->vel[i], DT));
    }
    compute_forces(s);
    for (int i = 0; i < NPART; i++)
        s->vel[i] = v_add(s->vel[i], v_scale(s->force[i], 0.5 * DT));
}

static int check_state(const system_t *s, double e0, long step)
{
    double e = s->epot + kinetic(s), drift = fabs(e - e0) / fabs(e0);
    vec p = momentum(s);
    double other = potential_all_pairs(s);
    if (drift > DRIFT_BOUND) {
        fprintf(stderr, "nbody: step %ld energy drift %g exceeds %g\n", step, drift, DRIFT_BOUND);
        return 0;
    }
    if (sqrt(v_dot(p, p)) > 1e-9 * NPART) {
        fprintf(stderr, "nbody: step %ld momentum %g not conserved\n", step, sqrt(v_dot(p, p)));
        return 0;
    }
    if (fabs(other - s->epot) > 1e-9 * fabs(s->epot)) {
        fprintf(stderr, "nbody: step %ld potential %.12g vs recomputed %.12g\n", step, s->epot,
                other);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : DEFAULT_STEPS;
    if (steps < 1)
        steps = 1;
    static system_t s;
    s.box = cbrt(NPART / DENSITY);
    s.law = lennard_jones;
    init_lattice(&s);
    init_velocities(&s, 1.0);
    compute_forces(&s);
    double e0 = s.epot + kinetic(&s);
    for (long t = 1; t <= steps; t++) {
        verlet_step(&s);
        if ((t % CHECK_EVERY == 0 || t == steps) && !check_state(&s, e0, t)) {
            fprintf(stderr, "nbody: FAILED\n");
            return 1;
        }
    }
    uint64_t h = (uint64_t)llround(fabs(e0) * 1e4) * 0x100000001b3ull ^ (uint64_t)llround(kinetic(&s) * 1e2);
    printf("ok %016llx\n", (unsigned long long)h);
    return 0;
}
