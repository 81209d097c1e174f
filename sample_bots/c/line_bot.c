/*
 * A 6 nimmt! bot in C for the arena's line protocol: plain C99, no libraries.
 *
 * It reads one JSON object a line on stdin (a request to answer, or an event to ignore) and
 * writes one JSON answer a line on stdout, flushed at once; it exits at the end of its input.
 * Diagnostics go to stderr, which the arena keeps in the bot's log. The protocol is described
 * in docs/writing-a-bot.md; the arena's bridge turns it into gRPC.
 *
 * It plays like sample_bots/python/heuristic_bot.py: the card least likely to become a row's
 * sixth, the cheapest row when it must take one, and in the draft the card with the fewest
 * bullheads nearest the middle of the deck.
 *
 *   make bots                                    (or: cc -O2 -o build/line_bot sample_bots/c/line_bot.c)
 *   arena run --bot c=stdio:build/line_bot --bot sample_bots/python/random_bot.py
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * A small JSON reader: the line is parsed into a tree of nodes that point into it. Strings are
 * kept raw (escapes are skipped, not decoded): this bot only compares keys and enum names and
 * copies the request id, none of which hold escapes.
 * ------------------------------------------------------------------------------------------- */

enum kind { J_NULL, J_BOOL, J_NUMBER, J_STRING, J_ARRAY, J_OBJECT };

struct node {
    enum kind kind;
    double number;      /* J_NUMBER, J_BOOL (1 or 0) */
    const char *text;   /* J_STRING: the raw characters between the quotes */
    size_t length;
    const char *key;    /* the key of an object member, raw */
    size_t key_length;
    struct node *child; /* the first element or member of an array or object */
    struct node *next;  /* the next sibling */
};

struct parser {
    const char *at;
    struct node *nodes; /* a pool: every node takes at least one character, so length + 1 do */
    size_t used, size;
};

static const char *parse_value(struct parser *p, struct node *out);

static void skip_space(struct parser *p) {
    while (*p->at == ' ' || *p->at == '\t' || *p->at == '\n' || *p->at == '\r') p->at++;
}

static struct node *new_node(struct parser *p) {
    if (p->used == p->size) return NULL;
    struct node *n = &p->nodes[p->used++];
    memset(n, 0, sizeof *n);
    return n;
}

/* A string at p->at (on its opening quote): its raw text, or NULL if it is not one. */
static const char *parse_string(struct parser *p, const char **text, size_t *length) {
    if (*p->at != '"') return NULL;
    const char *start = ++p->at;
    while (*p->at && *p->at != '"') {
        if (*p->at == '\\' && p->at[1]) p->at++;
        p->at++;
    }
    if (*p->at != '"') return NULL;
    *text = start;
    *length = (size_t)(p->at - start);
    return ++p->at;
}

static const char *parse_list(struct parser *p, struct node *out, char close, int members) {
    struct node **tail = &out->child;
    p->at++;
    skip_space(p);
    if (*p->at == close) return ++p->at;
    for (;;) {
        struct node *item = new_node(p);
        if (!item) return NULL;
        skip_space(p);
        if (members) {
            if (!parse_string(p, &item->key, &item->key_length)) return NULL;
            skip_space(p);
            if (*p->at++ != ':') return NULL;
        }
        if (!parse_value(p, item)) return NULL;
        *tail = item;
        tail = &item->next;
        skip_space(p);
        if (*p->at == ',') {
            p->at++;
            continue;
        }
        if (*p->at != close) return NULL;
        return ++p->at;
    }
}

static const char *parse_value(struct parser *p, struct node *out) {
    skip_space(p);
    switch (*p->at) {
    case '{':
        out->kind = J_OBJECT;
        return parse_list(p, out, '}', 1);
    case '[':
        out->kind = J_ARRAY;
        return parse_list(p, out, ']', 0);
    case '"':
        out->kind = J_STRING;
        return parse_string(p, &out->text, &out->length);
    case 't':
        out->kind = J_BOOL;
        out->number = 1;
        return strncmp(p->at, "true", 4) ? NULL : (p->at += 4);
    case 'f':
        out->kind = J_BOOL;
        return strncmp(p->at, "false", 5) ? NULL : (p->at += 5);
    case 'n':
        out->kind = J_NULL;
        return strncmp(p->at, "null", 4) ? NULL : (p->at += 4);
    default: {
        char *end;
        out->kind = J_NUMBER;
        out->number = strtod(p->at, &end);
        if (end == p->at) return NULL;
        return p->at = end;
    }
    }
}

/* The member `key` of an object, or NULL. */
static const struct node *get(const struct node *object, const char *key) {
    if (!object || object->kind != J_OBJECT) return NULL;
    size_t length = strlen(key);
    for (const struct node *m = object->child; m; m = m->next)
        if (m->key_length == length && !memcmp(m->key, key, length)) return m;
    return NULL;
}

static int is_string(const struct node *n, const char *text) {
    return n && n->kind == J_STRING && n->length == strlen(text) && !memcmp(n->text, text, n->length);
}

static int integer(const struct node *n) {
    return n && n->kind == J_NUMBER ? (int)n->number : 0;
}

/* ---------------------------------------------------------------------------------------------
 * The game.
 * ------------------------------------------------------------------------------------------- */

#define MAX_CARD 104
#define ROWS 4
#define ROW_LIMIT 5

struct cards {
    int card[MAX_CARD];
    int count;
};

static void read_cards(const struct node *array, struct cards *out) {
    out->count = 0;
    if (!array || array->kind != J_ARRAY) return;
    for (const struct node *n = array->child; n && out->count < MAX_CARD; n = n->next)
        out->card[out->count++] = integer(n);
}

static int bullheads(int card) {
    if (card == 55) return 7;
    if (card % 11 == 0) return 5;
    if (card % 10 == 0) return 3;
    if (card % 5 == 0) return 2;
    return 1;
}

static int penalty(const struct cards *cards) {
    int sum = 0;
    for (int i = 0; i < cards->count; i++) sum += bullheads(cards->card[i]);
    return sum;
}

struct view {
    int players, deck;
    struct cards hand, table, rows[ROWS];
    int row_count;
    int seen[MAX_CARD + 1]; /* in hand, on the rows now or at the start, or played earlier */
};

static void read_view(const struct node *v, struct view *out) {
    memset(out, 0, sizeof *out);
    const struct node *settings = get(v, "settings");
    out->players = integer(get(settings, "players"));
    out->deck = is_string(get(settings, "variant"), "VARIANT_STANDARD") ? MAX_CARD : 10 * out->players + 4;
    read_cards(get(v, "hand"), &out->hand);
    read_cards(get(v, "table"), &out->table);
    const struct node *rows = get(v, "rows");
    for (const struct node *r = rows ? rows->child : NULL; r && out->row_count < ROWS; r = r->next)
        read_cards(get(r, "cards"), &out->rows[out->row_count++]);
    /* Cards seen in lists of lists: earlier turns, and the rows as the round began (a starting
     * card that was taken since lies on no row, yet it is in no hand). */
    struct cards turn;
    const char *seen_lists[] = {"played", "start_rows"};
    for (int k = 0; k < 2; k++) {
        const struct node *lists = get(v, seen_lists[k]);
        for (const struct node *t = lists ? lists->child : NULL; t; t = t->next) {
            read_cards(get(t, "cards"), &turn);
            for (int i = 0; i < turn.count; i++)
                if (turn.card[i] >= 1 && turn.card[i] <= MAX_CARD) out->seen[turn.card[i]] = 1;
        }
    }
    for (int i = 0; i < out->hand.count; i++) out->seen[out->hand.card[i]] = 1;
    for (int r = 0; r < out->row_count; r++)
        for (int i = 0; i < out->rows[r].count; i++) out->seen[out->rows[r].card[i]] = 1;
}

static int row_end(const struct cards *row) {
    return row->card[row->count - 1];
}

/* The row `card` joins (the highest row end below it), or -1 when it is below every row. */
static int row_for(const struct view *v, int card) {
    int best = -1;
    for (int r = 0; r < v->row_count; r++)
        if (row_end(&v->rows[r]) < card && (best < 0 || row_end(&v->rows[r]) > row_end(&v->rows[best])))
            best = r;
    return best;
}

/* The row with the fewest bullheads, the lowest index on ties. */
static int cheapest_row(const struct view *v) {
    int best = 0;
    for (int r = 1; r < v->row_count; r++)
        if (penalty(&v->rows[r]) < penalty(&v->rows[best])) best = r;
    return best;
}

/* P(at least `needed` successes in `tries` tries), each with probability `p`. */
static double chance_at_least(int needed, int tries, double p) {
    double total = 0;
    for (int k = needed; k <= tries; k++) {
        double term = 1;
        for (int i = 1; i <= k; i++) term = term * (tries - k + i) / i;
        for (int i = 0; i < k; i++) term *= p;
        for (int i = 0; i < tries - k; i++) term *= 1 - p;
        total += term;
    }
    return total;
}

/* What playing `card` is expected to cost, and how many unseen cards lie below it in its row. */
static void cost(const struct view *v, int card, double *expected, int *gap) {
    int row = row_for(v, card);
    *gap = 0;
    if (row < 0) {
        *expected = penalty(&v->rows[cheapest_row(v)]) + 0.5;
        return;
    }
    int hidden = 0;
    for (int c = 1; c <= v->deck; c++) {
        if (v->seen[c]) continue;
        hidden++;
        if (row_end(&v->rows[row]) < c && c < card) (*gap)++;
    }
    double p = hidden ? (double)*gap / hidden : 0;
    int needed = ROW_LIMIT - v->rows[row].count;
    double risk = needed == 0 ? 1 : chance_at_least(needed, v->players - 1, p > 1 ? 1 : p);
    *expected = risk * penalty(&v->rows[row]) + risk;
}

static int choose_card(const struct view *v) {
    int best = v->hand.card[0], best_gap = 0;
    double best_cost = -1;
    for (int i = 0; i < v->hand.count; i++) {
        double expected;
        int gap;
        cost(v, v->hand.card[i], &expected, &gap);
        if (best_cost < 0 || expected < best_cost || (expected == best_cost && gap < best_gap)) {
            best = v->hand.card[i];
            best_cost = expected;
            best_gap = gap;
        }
    }
    return best;
}

static int choose_draft(const struct view *v) {
    double middle = (v->deck + 1) / 2.0;
    int best = v->table.card[0];
    for (int i = 1; i < v->table.count; i++) {
        int card = v->table.card[i];
        double a = card - middle, b = best - middle;
        if (bullheads(card) < bullheads(best) ||
            (bullheads(card) == bullheads(best) && (a < 0 ? -a : a) < (b < 0 ? -b : b)))
            best = card;
    }
    return best;
}

/* ---------------------------------------------------------------------------------------------
 * The protocol: answer requests, ignore everything else.
 * ------------------------------------------------------------------------------------------- */

static void handle(const char *line, size_t length) {
    struct parser p = {line, calloc(length + 1, sizeof(struct node)), 0, length + 1};
    struct node *root = p.nodes ? new_node(&p) : NULL;
    if (!root || !parse_value(&p, root)) {
        fprintf(stderr, "line_bot: cannot read a line as JSON: %.80s\n", line);
        free(p.nodes);
        return;
    }
    const struct node *request = get(root, "request");
    const struct node *id = get(request, "request_id");
    if (request && id && id->kind == J_STRING) {
        const struct node *decision = get(request, "decision");
        struct view *v = malloc(sizeof *v);
        if (!v) abort();
        read_view(get(request, "view"), v);
        if (is_string(decision, "DECISION_ROW"))
            printf("{\"request_id\":\"%.*s\",\"row\":%d}\n", (int)id->length, id->text, cheapest_row(v));
        else if (is_string(decision, "DECISION_DRAFT") && v->table.count)
            printf("{\"request_id\":\"%.*s\",\"card\":%d}\n", (int)id->length, id->text, choose_draft(v));
        else if (is_string(decision, "DECISION_CARD") && v->hand.count)
            printf("{\"request_id\":\"%.*s\",\"card\":%d}\n", (int)id->length, id->text, choose_card(v));
        else
            fprintf(stderr, "line_bot: cannot answer request %.*s\n", (int)id->length, id->text);
        fflush(stdout);
        free(v);
    }
    /* Anything else is an event, which this bot does not use: ignored, as every bot must. */
    free(p.nodes);
}

int main(void) {
    char *line = NULL;
    size_t capacity = 0;
    ssize_t length;
    while ((length = getline(&line, &capacity, stdin)) != -1) handle(line, (size_t)length);
    free(line);
    return 0; /* the end of the input: the arena is done with this bot */
}
