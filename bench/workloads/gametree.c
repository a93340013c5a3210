/*
 * gametree.c - game-tree search workload, shaped like crafty (on connect four).
 *
 * Holds: a 7x6 connect-four board (cells plus column heights), move
 * generation with centre-first ordering, make/unmake, a win test around the
 * last move, a window-counting static evaluation, a negamax alpha-beta search
 * with a killer-column move-ordering hint, iterative deepening, and a plain
 * negamax minimax (no pruning) used as the oracle.
 *
 * Checks: on every test position, alpha-beta and plain minimax agree on the
 * value at a shallow depth (and on a second shallow depth), and alpha-beta
 * never visits more nodes than minimax there. Prints "ok <checksum>" (values,
 * best moves and node counts of the deep searches) and exits 0, or an error
 * and exits 1.
 *
 * Usage: gametree [size] [positions]   size = iterative-deepening depth of the
 * deep search; positions = number of random openings searched (default 10).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define COLS 7
#define ROWS 6
#define WIN_SCORE 100000
#define INF 1000000
#define DEFAULT_POSITIONS 10
#define MAX_POSITIONS 1000
#define CHECK_DEPTH 5
#define DEFAULT_DEPTH 11

typedef struct {
    int8_t cell[ROWS][COLS];   /* 0 empty, 1 or 2 a player's stone */
    int height[COLS];
    int moves;
} board;

typedef struct { uint64_t nodes; int killer[32]; } search;

typedef int (*search_fn)(board *b, search *s, int player, int depth, int alpha, int beta, int ply);

static uint64_t rng_state = 0xda942042e4dd58b5ull;

static uint64_t rng_next(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int other(int player) { return 3 - player; }

static void make_move(board *b, int col, int player)
{
    b->cell[b->height[col]++][col] = (int8_t)player;
    b->moves++;
}

static void unmake_move(board *b, int col)
{
    b->cell[--b->height[col]][col] = 0;
    b->moves--;
}

static int gen_moves(const board *b, int *moves, int killer)
{
    static const int order[COLS] = { 3, 2, 4, 1, 5, 0, 6 };
    int n = 0;
    if (killer >= 0 && b->height[killer] < ROWS)
        moves[n++] = killer;
    for (int i = 0; i < COLS; i++)
        if (order[i] != killer && b->height[order[i]] < ROWS)
            moves[n++] = order[i];
    return n;
}

static int run_length(const board *b, int r, int c, int dr, int dc, int player)
{
    int n = 0;
    for (r += dr, c += dc; r >= 0 && r < ROWS && c >= 0 && c < COLS && b->cell[r][c] == player;
         r += dr, c += dc)
        n++;
    return n;
}

/* Did the stone just dropped in column col complete four in a row? */
static int is_win(const board *b, int col)
{
    static const int dir[4][2] = { { 0, 1 }, { 1, 0 }, { 1, 1 }, { 1, -1 } };
    int r = b->height[col] - 1, player = b->cell[r][col];
    for (int d = 0; d < 4; d++) {
        int len = 1 + run_length(b, r, col, dir[d][0], dir[d][1], player) +
                  run_length(b, r, col, -dir[d][0], -dir[d][1], player);
        if (len >= 4)
            return 1;
    }
    return 0;
}

static int window_score(const board *b, int r, int c, int dr, int dc, int player)
{
    int mine = 0, theirs = 0;
    for (int k = 0; k < 4; k++) {
        int v = b->cell[r + k * dr][c + k * dc];
        mine += v == player;
        theirs += v == other(player);
    }
    if (mine && theirs)
        return 0;
    static const int weight[4] = { 0, 1, 8, 64 };
    return mine ? weight[mine] : -weight[theirs];
}

static int evaluate(const board *b, int player)
{
    int score = 0;
    for (int r = 0; r < ROWS; r++) {
        for (int c = 0; c < COLS; c++) {
            if (c + 3 < COLS)
                score += window_score(b, r, c, 0, 1, player);
            if (r + 3 < ROWS)
                score += window_score(b, r, c, 1, 0, player);
            if (r + 3 < ROWS && c + 3 < COLS)
                score += window_score(b, r, c, 1, 1, player);
            if (r + 3 < ROWS && c >= 3)
                score += window_score(b, r, c, 1, -1, player);
        }
    }
    return score;
}

/* Score of playing col, or INF+1 if the move wins at once (caller scores it). */
static int play_and_search(search_fn fn, board *b, search *s, int col, int player, int depth,
                           int alpha, int beta, int ply)
{
    make_move(b, col, player);
    int v = is_win(b, col) ? WIN_SCORE - ply
                           : -fn(b, s, other(player), depth - 1, -beta, -alpha, ply + 1);
    unmake_move(b, col);
    return v;
}

static int minimax(board *b, search *s, int player, int depth, int alpha, int beta, int ply)
{
    int moves[COLS], n = gen_moves(b, moves, -1), best = -INF;
    s->nodes++;
    if (n == 0)
        return 0;
    if (depth == 0)
        return evaluate(b, player);
    for (int i = 0; i < n; i++) {
        int v = play_and_search(minimax, b, s, moves[i], player, depth, alpha, beta, ply);
        if (v > best)
            best = v;
    }
    return best;
}

static int alphabeta(board *b, search *s, int player, int depth, int alpha, int beta, int ply)
{
    int moves[COLS], n = gen_moves(b, moves, s->killer[ply]), best = -INF;
    s->nodes++;
    if (n == 0)
        return 0;
    if (depth == 0)
        return evaluate(b, player);
    for (int i = 0; i < n; i++) {
        int v = play_and_search(alphabeta, b, s, moves[i], player, depth, alpha, beta, ply);
        if (v > best)
            best = v;
        if (v > alpha)
            alpha = v;
        if (alpha >= beta) {
            s->killer[ply] = moves[i];
            break;
        }
    }
    return best;
}

/* Root search: returns the value, stores the best column. */
static int root_search(search_fn fn, board *b, search *s, int player, int depth, int *best_col)
{
    int moves[COLS], n = gen_moves(b, moves, -1), best = -INF;
    for (int i = 0; i < n; i++) {
        int v = play_and_search(fn, b, s, moves[i], player, depth, best, INF, 0);
        if (v > best) {
            best = v;
            *best_col = moves[i];
        }
    }
    return best;
}

static void init_search(search *s)
{
    s->nodes = 0;
    for (int i = 0; i < 32; i++)
        s->killer[i] = -1;
}

/* A random opening of 4..9 moves that does not already contain a win. */
static void random_position(board *b, int *player)
{
    for (;;) {
        *b = (board){ { { 0 } }, { 0 }, 0 };
        *player = 1;
        int len = 4 + (int)(rng_next() % 6), ok = 1;
        for (int i = 0; i < len && ok; i++) {
            int col = (int)(rng_next() % COLS);
            if (b->height[col] >= ROWS)
                continue;
            make_move(b, col, *player);
            ok = !is_win(b, col);
            *player = other(*player);
        }
        if (ok)
            return;
    }
}

static int check_position(board *b, int player, int depth)
{
    search s1, s2;
    int c1 = -1, c2 = -1;
    init_search(&s1);
    init_search(&s2);
    int v1 = root_search(minimax, b, &s1, player, depth, &c1);
    int v2 = root_search(alphabeta, b, &s2, player, depth, &c2);
    if (v1 != v2 || s2.nodes > s1.nodes) {
        fprintf(stderr, "gametree: depth %d minimax %d (%llu nodes) vs alpha-beta %d (%llu)\n",
                depth, v1, (unsigned long long)s1.nodes, v2, (unsigned long long)s2.nodes);
        return 0;
    }
    return 1;
}

static uint64_t deep_search(board *b, int player, int max_depth, uint64_t h)
{
    search s;
    init_search(&s);
    for (int d = 1; d <= max_depth; d++) {
        int col = -1, v = root_search(alphabeta, b, &s, player, d, &col);
        h = (h ^ (uint64_t)(uint32_t)v ^ ((uint64_t)col << 32)) * 0x100000001b3ull;
        if (v >= WIN_SCORE - 64 || v <= -(WIN_SCORE - 64))
            break;
    }
    return (h ^ s.nodes) * 0x100000001b3ull;
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : DEFAULT_DEPTH;
    int positions = argc > 2 ? atoi(argv[2]) : DEFAULT_POSITIONS;
    if (depth < 1 || depth > 24)
        depth = DEFAULT_DEPTH;
    if (positions < 1 || positions > MAX_POSITIONS)
        positions = DEFAULT_POSITIONS;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int p = 0; p < positions; p++) {
        board b;
        int player;
        random_position(&b, &player);
        if (!check_position(&b, player, CHECK_DEPTH) || !check_position(&b, player, 3)) {
            fprintf(stderr, "gametree: FAILED on position %d\n", p);
            return 1;
        }
        h = deep_search(&b, player, depth, h);
    }
    printf("ok %016llx\n", (unsigned long long)h);
    return 0;
}
