/* pegwalk: the three- and four-hand pegging play-out of companion.advice.pegging_multi._play_out, compiled.
 *
 * One function, play_out(), runs exactly the loop of the pure-Python _play_out over the same tables: the count
 * states (_CS_STEP, _CS_PTS and the reply groups _CS_UP/_CS_DN, read as the Python lists they are, and made by
 * calling back into Python, _cs_step and _cs_groups, where an entry is still None), the hands (_H_ENTRY, copied
 * into C arrays once by set_hands) and the turn order (_NEXT). The pure-Python loop stays the reference: the
 * tests play random groups both ways and compare every sum (tests/test_pegging_multi_fast.py).
 *
 * Integers: a policy score is at most 13 points x C(51, 4) = 249,900 x 13 ... well under 2^40, held in int64; a
 * deal's tally packs 10 bits a side (at most 6 sides: the caller checks) in an unsigned 64-bit int, as the Python
 * loop packs it in an int; the weights are summed as Python ints (PyNumber_Add), never in C.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <math.h>
#include <string.h>

#define MAX_HANDS 4096
#define MAX_PLAYERS 4

static int n_hands = 0;
static int16_t h_less[MAX_HANDS][14];      /* hand id -> rank -> the hand less one card of it (-1: none held) */
static uint8_t h_fit[MAX_HANDS][11][5];    /* hand id -> room 0..10 -> [how many, distinct ranks that fit...] */
static PyObject *h_entry = NULL;           /* the _H_ENTRY list: hand id -> its entry tuple */

static PyObject *binom_src = NULL;
static long long binom[14][53];

/* an item of a tuple or a list (borrowed) */
static inline PyObject *item(PyObject *o, Py_ssize_t i) {
    return PyTuple_Check(o) ? PyTuple_GET_ITEM(o, i) : PyList_GET_ITEM(o, i);
}

/* a Python int as a C long: the tables hold small ints, read straight from a compact int's one digit */
static inline int as_int(PyObject *o, long *out) {
#if PY_VERSION_HEX >= 0x030C0000
    if (PyLong_CheckExact(o) && PyUnstable_Long_IsCompact((PyLongObject *)o)) {
        *out = (long)PyUnstable_Long_CompactValue((PyLongObject *)o);
        return 0;
    }
#else
    if (PyLong_CheckExact(o)) {
        Py_ssize_t size = Py_SIZE(o);        /* CPython 3.11: the sign and number of 30-bit digits */
        if (size == 0 || size == 1 || size == -1) {
            *out = (long)size * (long)((PyLongObject *)o)->ob_digit[0];
            return 0;
        }
    }
#endif
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred())
        return -1;
    *out = v;
    return 0;
}

static PyObject *set_hands(PyObject *self, PyObject *entries) {
    if (!PyList_Check(entries)) {
        PyErr_SetString(PyExc_TypeError, "set_hands: a list of hand entries");
        return NULL;
    }
    Py_ssize_t n = PyList_GET_SIZE(entries);
    if (n > MAX_HANDS) {
        PyErr_SetString(PyExc_ValueError, "set_hands: too many hands");
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyList_GET_ITEM(entries, i);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 25) {
            PyErr_SetString(PyExc_ValueError, "set_hands: an entry is a 25-tuple");
            return NULL;
        }
        long id;
        if (as_int(PyTuple_GET_ITEM(e, 0), &id) < 0)
            return NULL;
        if (id != i) {
            PyErr_SetString(PyExc_ValueError, "set_hands: entry i has id i");
            return NULL;
        }
        h_less[i][0] = -1;
        for (int r = 1; r < 14; r++) {
            PyObject *x = PyTuple_GET_ITEM(e, r);
            long j = -1;
            if (x != Py_None && as_int(PyTuple_GET_ITEM(x, 0), &j) < 0)
                return NULL;
            h_less[i][r] = (int16_t)j;
        }
        for (int room = 0; room < 11; room++) {
            PyObject *fit = PyTuple_GET_ITEM(e, 14 + room);
            Py_ssize_t k = PyTuple_GET_SIZE(fit);
            if (k > 4) {
                PyErr_SetString(PyExc_ValueError, "set_hands: a hand of more than 4 ranks");
                return NULL;
            }
            h_fit[i][room][0] = (uint8_t)k;
            for (Py_ssize_t a = 0; a < k; a++) {
                long r;
                if (as_int(PyTuple_GET_ITEM(fit, a), &r) < 0)
                    return NULL;
                h_fit[i][room][1 + a] = (uint8_t)r;
            }
        }
    }
    Py_INCREF(entries);
    Py_XSETREF(h_entry, entries);
    n_hands = (int)n;
    Py_RETURN_NONE;
}

static int load_binom(PyObject *b) {
    if (b == binom_src)
        return 0;
    if (PySequence_Size(b) < 14)
        goto bad;
    for (int h = 0; h < 14; h++) {
        PyObject *row = PySequence_GetItem(b, h);
        if (row == NULL)
            return -1;
        if (PySequence_Size(row) < 53) {
            Py_DECREF(row);
            goto bad;
        }
        for (int m = 0; m < 53; m++) {
            PyObject *x = PySequence_GetItem(row, m);
            if (x == NULL) {
                Py_DECREF(row);
                return -1;
            }
            long long v = PyLong_AsLongLong(x);
            Py_DECREF(x);
            if (v == -1 && PyErr_Occurred()) {
                Py_DECREF(row);
                return -1;
            }
            binom[h][m] = v;
        }
        Py_DECREF(row);
    }
    Py_INCREF(b);
    Py_XSETREF(binom_src, b);
    return 0;
bad:
    PyErr_SetString(PyExc_ValueError, "play_out: binom is 14 rows of 53");
    return -1;
}

static int index_error(void) {
    PyErr_SetString(PyExc_RuntimeError, "pegwalk: a binomial index below 0 (the pool and the hands disagree)");
    return -1;
}

/* _expected: the replier's expected best worth x C(n1, h) over groups ((worth, ranks, mine), best first) */
static int expected(PyObject *groups, const int *pool, int n1, const long long *cn, long long *out) {
    long long exp = 0;
    int top = n1;
    Py_ssize_t ng = PyTuple_GET_SIZE(groups);
    for (Py_ssize_t i = 0; i < ng; i++) {
        PyObject *g = PyTuple_GET_ITEM(groups, i);
        long v, mine;
        if (as_int(PyTuple_GET_ITEM(g, 0), &v) < 0 || as_int(PyTuple_GET_ITEM(g, 2), &mine) < 0)
            return -1;
        PyObject *rs = PyTuple_GET_ITEM(g, 1);
        long m = -mine;
        Py_ssize_t k = PyTuple_GET_SIZE(rs);
        for (Py_ssize_t a = 0; a < k; a++) {
            long y;
            if (as_int(PyTuple_GET_ITEM(rs, a), &y) < 0)
                return -1;
            m += pool[y];
        }
        if (m) {
            if (top - m < 0)
                return index_error();
            if (v)
                exp += v * (cn[top] - cn[top - m]);
            top -= (int)m;
        }
    }
    *out = exp;
    return 0;
}

/* the look-ahead part of a score: what the next player's best reply after rank x is worth, x sign */
static int lookahead(PyObject *grp, const int *pool, int n1, const long long *cn, long long call, long sign,
                     long long *out) {
    Py_ssize_t k = PyTuple_GET_SIZE(grp);
    *out = 0;
    if (k == 3) {                  /* one group of one rank: (worth, rank, 0 or 1) */
        long v, y, mine;
        if (as_int(PyTuple_GET_ITEM(grp, 0), &v) < 0 || as_int(PyTuple_GET_ITEM(grp, 1), &y) < 0 ||
            as_int(PyTuple_GET_ITEM(grp, 2), &mine) < 0)
            return -1;
        long m = pool[y] - mine;
        if (m) {
            if (n1 - m < 0)
                return index_error();
            *out = sign * v * (call - cn[n1 - m]);
        }
    } else if (k) {                /* (groups,) */
        long long e;
        if (expected(PyTuple_GET_ITEM(grp, 0), pool, n1, cn, &e) < 0)
            return -1;
        *out = sign * e;
    }
    return 0;
}

/* d[key] += w (from 0), as Python ints; ``key`` is a new reference, taken (NULL: the error it was made with) */
static int add_to(PyObject *d, PyObject *key, PyObject *w) {
    if (key == NULL)
        return -1;
    PyObject *had = PyDict_GetItemWithError(d, key);
    PyObject *sum = had ? PyNumber_Add(had, w) : (PyErr_Occurred() ? NULL : (Py_INCREF(w), w));
    int rc = sum == NULL ? -1 : PyDict_SetItem(d, key, sum);
    Py_XDECREF(sum);
    Py_DECREF(key);
    return rc;
}

static PyObject *play_out(PyObject *self, PyObject *args) {
    PyObject *deals, *nxt_of, *shift_o, *wps_o, *pairs, *step_tab, *pts_tab, *cs_step, *cs_groups, *binom_o;
    PyObject *pool_o, *left_o;
    int n, last_card, single, p0, cs0, ri0, unplayed0, hold0, act0, first0, last0, firsts, you = -1, mine = -1;
    if (!PyArg_ParseTuple(args, "OiOOOOipO!O!OOOiiiO!iO!iiiip|ii:play_out", &deals, &n, &nxt_of,
                          &shift_o, &wps_o, &pairs, &last_card, &single, &PyList_Type, &step_tab, &PyList_Type,
                          &pts_tab, &cs_step, &cs_groups, &binom_o, &p0, &cs0, &ri0, &PyList_Type, &pool_o,
                          &unplayed0, &PyList_Type, &left_o, &hold0, &act0, &first0, &last0, &firsts, &you, &mine))
        return NULL;
    /* deals: a list of (hand entries of every player, weight), the entries changed in place as the Python loop
     * changes them; or a group as _play_each has it, {hand ids of every player: weight}, your hand (``you``)
     * replaced by ``mine`` */
    int by_ids = PyDict_Check(deals);
    if (!(by_ids ? you >= 0 && you < n && mine >= 0 && mine < n_hands : PyList_Check(deals))) {
        PyErr_SetString(PyExc_TypeError, "play_out: a list of deals, or a dict of them with you and your hand id");
        return NULL;
    }
    if (n < 1 || n > MAX_PLAYERS || n_hands == 0) {
        PyErr_SetString(PyExc_ValueError, "play_out: 1 to 4 players, after set_hands");
        return NULL;
    }
    if (load_binom(binom_o) < 0)
        return NULL;
    /* the per-call tables, as C arrays */
    int next[MAX_PLAYERS][1 << MAX_PLAYERS];
    int shift[MAX_PLAYERS];
    long wps[MAX_PLAYERS];
    long pwp[MAX_PLAYERS][MAX_PLAYERS], psign[MAX_PLAYERS][MAX_PLAYERS], pwq[MAX_PLAYERS][MAX_PLAYERS];
    PyObject *pgroups[MAX_PLAYERS][MAX_PLAYERS];
    for (int p = 0; p < n; p++) {
        PyObject *row = item(nxt_of, p);
        for (int m = 0; m < (1 << n); m++) {
            PyObject *x = item(row, m);
            long j = -1;
            if (x != Py_None && as_int(x, &j) < 0)
                return NULL;
            next[p][m] = (int)j;
        }
        long s;
        if (as_int(item(shift_o, p), &s) < 0 || as_int(item(wps_o, p), &wps[p]) < 0)
            return NULL;
        if (s < 0 || s > 54) {
            PyErr_SetString(PyExc_ValueError, "play_out: at most 6 sides of 10 bits");
            return NULL;
        }
        shift[p] = (int)s;
        PyObject *prow = item(pairs, p);
        for (int q = 0; q < n; q++) {
            PyObject *t = item(prow, q);
            if (as_int(PyTuple_GET_ITEM(t, 0), &pwp[p][q]) < 0 || as_int(PyTuple_GET_ITEM(t, 1), &psign[p][q]) < 0
                || as_int(PyTuple_GET_ITEM(t, 2), &pwq[p][q]) < 0)
                return NULL;
            pgroups[p][q] = PyTuple_GET_ITEM(t, 3);
        }
    }
    int pool0[14], left0[MAX_PLAYERS];
    for (int x = 0; x < 14; x++) {
        long v;
        if (as_int(PyList_GET_ITEM(pool_o, x), &v) < 0)
            return NULL;
        pool0[x] = (int)v;
    }
    for (int j = 0; j < n; j++) {
        long v;
        if (as_int(PyList_GET_ITEM(left_o, j), &v) < 0)
            return NULL;
        left0[j] = (int)v;
    }

    PyObject *ends = PyDict_New(), *seen = PyDict_New();
    if (ends == NULL || seen == NULL)
        goto error;
    Py_ssize_t nd = by_ids ? PyDict_GET_SIZE(deals) : PyList_GET_SIZE(deals), at = 0;
    for (Py_ssize_t d = 0; d < nd; d++) {
        PyObject *hands, *w;
        if (by_ids) {
            if (!PyDict_Next(deals, &at, &hands, &w) || !PyTuple_Check(hands) || PyTuple_GET_SIZE(hands) != n) {
                PyErr_SetString(PyExc_ValueError, "play_out: the group changed, or a key is not n hand ids");
                goto error;
            }
        } else {
            PyObject *deal = PyList_GET_ITEM(deals, d);
            hands = item(deal, 0);
            w = item(deal, 1);
        }
        int hid[MAX_PLAYERS], hid0[MAX_PLAYERS];
        for (int j = 0; j < n; j++) {
            long v;
            if (by_ids && j == you)
                v = mine;
            else if (as_int(by_ids ? PyTuple_GET_ITEM(hands, j) : PyTuple_GET_ITEM(item(hands, j), 0), &v) < 0)
                goto error;
            if (v < 0 || v >= n_hands) {
                PyErr_SetString(PyExc_ValueError, "play_out: a hand id out of range");
                goto error;
            }
            hid[j] = hid0[j] = (int)v;
        }
        uint64_t tot = 0;
        int pool[14], left[MAX_PLAYERS];
        memcpy(pool, pool0, sizeof pool);
        memcpy(left, left0, sizeof left);
        int p = p0, cs = cs0, ri = ri0, hold = hold0, act = act0, first = first0, last = last0;
        int unplayed = unplayed0;
        int tok = -1;                              /* the deal's first play (0: a go) */
        for (int steps = 0;; steps++) {
            if (steps > 1000) {                    /* a deal is at most 52 cards and their gos: the input is wrong */
                PyErr_SetString(PyExc_RuntimeError, "pegwalk: a deal that never ends (hands and cards left disagree)");
                goto error;
            }
            int h = hid[p];
            const uint8_t *cands = h_fit[h][ri - 14];
            int nc = cands[0];
            if (!nc) {                             /* a go */
                if (tok < 0)
                    tok = 0;
                if (first < 0)
                    first = p;
                act &= ~(1 << p);
            } else {
                int r = cands[1];
                if (nc > 1) {                      /* the policy's choice */
                    int q = next[p][left[p] == 1 ? act & ~(1 << p) : act];
                    PyObject *prow = PyList_GET_ITEM(pts_tab, cs);
                    long long bs = -((long long)1 << 62);
                    if (q != p && q >= 0) {
                        long wp = pwp[p][q], sign = psign[p][q], wq = pwq[p][q];
                        PyObject *grow = PyList_GET_ITEM(pgroups[p][q], cs);
                        int hq = left[q];
                        int n1 = unplayed - 1;
                        if (hq > n1)
                            hq = n1;
                        if (n1 < 0 || n1 > 52 || hq < 0 || hq > 13) {
                            index_error();
                            goto error;
                        }
                        const long long *cn = binom[hq];
                        long long call = cn[n1];
                        long long wpc = wp * call;
                        for (int a = 1; a <= nc; a++) {
                            int x = cands[a];
                            long px;
                            if (as_int(item(prow, x), &px) < 0)
                                goto error;
                            long long s = wpc * px, la;
                            PyObject *grp = PyList_GET_ITEM(grow, x);
                            if (grp == Py_None) {
                                grp = PyObject_CallFunction(cs_groups, "iil", cs, x, wq);
                                if (grp == NULL)
                                    goto error;
                                int bad = !PyTuple_Check(grp) || lookahead(grp, pool, n1, cn, call, sign, &la) < 0;
                                Py_DECREF(grp);           /* the table holds it */
                                if (bad) {
                                    if (!PyErr_Occurred())
                                        PyErr_SetString(PyExc_TypeError, "play_out: _cs_groups gave no tuple");
                                    goto error;
                                }
                            } else if (lookahead(grp, pool, n1, cn, call, sign, &la) < 0) {
                                goto error;
                            }
                            s += la;
                            if (s >= bs) {
                                r = x;
                                bs = s;
                            }
                        }
                    } else {                       /* no reply to look ahead to: the points now */
                        long wp = wps[p];
                        for (int a = 1; a <= nc; a++) {
                            int x = cands[a];
                            long px;
                            if (as_int(item(prow, x), &px) < 0)
                                goto error;
                            long long s = (long long)wp * px;
                            if (s >= bs) {
                                r = x;
                                bs = s;
                            }
                        }
                    }
                }
                /* a play */
                if (tok < 0)
                    tok = r;
                PyObject *st = PyList_GET_ITEM(PyList_GET_ITEM(step_tab, cs), r);
                long pr, ncs, nri;
                if (st == Py_None) {
                    st = PyObject_CallFunction(cs_step, "ii", cs, r);
                    if (st == NULL)
                        goto error;
                    int bad = !PyTuple_Check(st) || as_int(PyTuple_GET_ITEM(st, 0), &pr) < 0 ||
                              as_int(PyTuple_GET_ITEM(st, 1), &ncs) < 0 || as_int(PyTuple_GET_ITEM(st, 2), &nri) < 0;
                    Py_DECREF(st);                /* the table holds it */
                    if (bad) {
                        if (!PyErr_Occurred())
                            PyErr_SetString(PyExc_TypeError, "play_out: _cs_step gave no tuple");
                        goto error;
                    }
                } else if (as_int(PyTuple_GET_ITEM(st, 0), &pr) < 0 || as_int(PyTuple_GET_ITEM(st, 1), &ncs) < 0 ||
                           as_int(PyTuple_GET_ITEM(st, 2), &nri) < 0) {
                    goto error;
                }
                cs = (int)ncs;
                ri = (int)nri;
                hid[p] = h_less[h][r];
                if (hid[p] < 0) {
                    PyErr_SetString(PyExc_RuntimeError, "pegwalk: a hand played a rank it does not hold");
                    goto error;
                }
                left[p] -= 1;
                if (!left[p]) {
                    hold &= ~(1 << p);
                    act &= ~(1 << p);
                }
                pool[r] -= 1;
                unplayed -= 1;
                if (pr)
                    tot += (uint64_t)pr << shift[p];
                if (!cs) {                         /* a 31: the next player holding cards leads the next count */
                    if (single || !hold)
                        break;
                    p = next[p][hold];
                    act = hold;
                    first = -1;
                    last = -1;
                    continue;
                }
                last = p;
            }
            if (act) {                             /* the next player holding cards and not gone */
                p = next[p][act];
                continue;
            }
            /* nobody can go on: the go to the player of the count's last card, the first who said go leads */
            tot += (uint64_t)last_card << shift[last < 0 ? last + n : last];
            if (single || first < 0 || !hold)
                break;
            p = next[(first - 1 + n) % n][hold];
            cs = 0;
            ri = 24;
            act = hold;
            first = -1;
            last = -1;
        }
        /* the hands as the Python loop leaves them (changed in place) */
        for (int j = 0; j < n && !by_ids; j++) {
            if (hid[j] != hid0[j]) {
                PyObject *e = PyList_GET_ITEM(h_entry, hid[j]);
                Py_INCREF(e);
                if (PyList_SetItem(hands, j, e) < 0)      /* steals e */
                    goto error;
            }
        }
        if (add_to(ends, PyLong_FromUnsignedLongLong(tot), w) < 0)     /* ends[tot] += w */
            goto error;
        if (firsts && add_to(seen, tok > 0 ? PyLong_FromLong(tok) : (Py_INCREF(Py_None), Py_None), w) < 0)
            goto error;                            /* seen[first play or None] += w */
    }
    return Py_BuildValue("(NN)", ends, seen);
error:
    Py_XDECREF(ends);
    Py_XDECREF(seen);
    return NULL;
}

/* randbelow(n) of random.Random (3.11: _randbelow_with_getrandbits): getrandbits(n.bit_length()) until under n */
static int randbelow(PyObject *getrandbits, long n, long *out) {
    int k = 0;
    while ((n >> k) != 0)
        k++;
    PyObject *bits = PyLong_FromLong(k);
    if (bits == NULL)
        return -1;
    for (;;) {
        PyObject *r = PyObject_CallOneArg(getrandbits, bits);
        if (r == NULL) {
            Py_DECREF(bits);
            return -1;
        }
        long v = PyLong_AsLong(r);
        Py_DECREF(r);
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(bits);
            return -1;
        }
        if (v < n) {
            Py_DECREF(bits);
            *out = v;
            return 0;
        }
    }
}

static int cmp_int(const void *a, const void *b) {
    return *(const int *)a - *(const int *)b;
}

/* sample_groups(getrandbits, ranks, cuts, n, value) -> {joint rank hands: times drawn}, or None after 200 n tries:
 * pegging_multi.sample_groups's loop, each draw random.Random.sample(ranks, total) exactly as CPython 3.11 makes it
 * (the same calls of getrandbits, so the same deals from the same seed), split at the cuts ((start, end, go
 * threshold) per player), each hand sorted, a draw with a card at or under a player's go threshold drawn again. */
static PyObject *sample_groups(PyObject *self, PyObject *args) {
    PyObject *getrandbits, *ranks_o, *cuts_o, *value_o;
    long n;
    if (!PyArg_ParseTuple(args, "OO!O!lO:sample_groups", &getrandbits, &PyList_Type, &ranks_o, &PyList_Type, &cuts_o,
                          &n, &value_o))
        return NULL;
    Py_ssize_t npop = PyList_GET_SIZE(ranks_o), ncut = PyList_GET_SIZE(cuts_o);
    if (npop > 52 || ncut > MAX_PLAYERS) {
        PyErr_SetString(PyExc_ValueError, "sample_groups: at most 52 cards and 4 players");
        return NULL;
    }
    int pop[52], value[14], i0[MAX_PLAYERS], i1[MAX_PLAYERS], above[MAX_PLAYERS];
    long v;
    for (Py_ssize_t i = 0; i < npop; i++) {
        if (as_int(PyList_GET_ITEM(ranks_o, i), &v) < 0)
            return NULL;
        if (v < 0 || v > 13) {
            PyErr_SetString(PyExc_ValueError, "sample_groups: a rank is 0..13");
            return NULL;
        }
        pop[i] = (int)v;
    }
    for (int r = 0; r < 14; r++) {
        if (as_int(item(value_o, r), &v) < 0)
            return NULL;
        value[r] = (int)v;
    }
    int total = 0, gos = 0;
    for (Py_ssize_t c = 0; c < ncut; c++) {
        PyObject *t = PyList_GET_ITEM(cuts_o, c);
        long a, b, g;
        if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) != 3 || as_int(PyTuple_GET_ITEM(t, 0), &a) < 0 ||
            as_int(PyTuple_GET_ITEM(t, 1), &b) < 0 || as_int(PyTuple_GET_ITEM(t, 2), &g) < 0)
            return PyErr_Occurred() ? NULL : (PyErr_SetString(PyExc_TypeError, "sample_groups: cuts"), NULL);
        if (a != total || b < a || b > npop) {
            PyErr_SetString(PyExc_ValueError, "sample_groups: the cuts follow each other within the cards");
            return NULL;
        }
        i0[c] = (int)a;
        i1[c] = (int)b;
        above[c] = (int)g;
        total = (int)b;
        if (g)
            gos = 1;
    }
    /* random.sample's choice of method: a list when it is smaller than a set of k (CPython 3.11) */
    long setsize = 21;
    if (total > 5)
        setsize += (long)pow(4.0, ceil(log((double)total * 3) / log(4.0)));
    int by_list = npop <= setsize;
    PyObject *out = PyDict_New(), *one = PyLong_FromLong(1);
    if (out == NULL || one == NULL) {
        Py_XDECREF(out);
        Py_XDECREF(one);
        return NULL;
    }
    long tries = 0, drawn = 0;
    int draw[52], work[52];
    while (drawn < n) {
        tries += 1;
        if (tries > 200 * n) {
            Py_DECREF(out);
            Py_DECREF(one);
            Py_RETURN_NONE;
        }
        if (by_list) {
            memcpy(work, pop, sizeof(int) * npop);
            for (int i = 0; i < total; i++) {
                long j;
                if (randbelow(getrandbits, npop - i, &j) < 0)
                    goto error;
                draw[i] = work[j];
                work[j] = work[npop - i - 1];
            }
        } else {
            char selected[52] = {0};
            for (int i = 0; i < total; i++) {
                long j;
                if (randbelow(getrandbits, npop, &j) < 0)
                    goto error;
                while (selected[j])
                    if (randbelow(getrandbits, npop, &j) < 0)
                        goto error;
                selected[j] = 1;
                draw[i] = pop[j];
            }
        }
        int rejected = 0;
        for (Py_ssize_t c = 0; c < ncut; c++) {
            qsort(draw + i0[c], (size_t)(i1[c] - i0[c]), sizeof(int), cmp_int);
            if (gos && i1[c] > i0[c] && value[draw[i0[c]]] <= above[c])
                rejected = 1;
        }
        if (rejected)
            continue;
        PyObject *key = PyTuple_New(ncut);
        if (key == NULL)
            goto error;
        for (Py_ssize_t c = 0; c < ncut; c++) {
            PyObject *h = PyTuple_New(i1[c] - i0[c]);
            if (h == NULL) {
                Py_DECREF(key);
                goto error;
            }
            for (int a = i0[c]; a < i1[c]; a++) {
                PyObject *r = PyLong_FromLong(draw[a]);
                if (r == NULL) {
                    Py_DECREF(h);
                    Py_DECREF(key);
                    goto error;
                }
                PyTuple_SET_ITEM(h, a - i0[c], r);
            }
            PyTuple_SET_ITEM(key, c, h);
        }
        if (add_to(out, key, one) < 0)
            goto error;
        drawn += 1;
    }
    Py_DECREF(one);
    return out;
error:
    Py_DECREF(out);
    Py_DECREF(one);
    return NULL;
}

static PyMethodDef methods[] = {
    {"sample_groups", sample_groups, METH_VARARGS,
     "sample_groups(getrandbits, ranks, cuts, n, value) -> {joint rank hands: times drawn} or None:\n"
     "pegging_multi.sample_groups's draws (random.Random.sample's, exactly)."},
    {"set_hands", set_hands, METH_O, "set_hands(entries): the play-out's hand table (pegging_multi._H_ENTRY)."},
    {"play_out", play_out, METH_VARARGS,
     "play_out(deals, n, next, shift, wp, pairs, last_card, single, step_tab, pts_tab, cs_step, cs_groups, binom,\n"
     "p, cs, ri, pool, unplayed, left, hold, act, first, last, firsts[, you, mine]) -> (ends, seen):\n"
     "pegging_multi._play_out's loop over every deal."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "pegwalk",
                                    "The three- and four-hand pegging play-out, compiled (Land's End).", -1, methods};

PyMODINIT_FUNC PyInit_pegwalk(void) {
    return PyModule_Create(&module);
}
