// edaccess_test.cpp - damka::EdAccessTables (damka_edaccess.hpp) through
// the EdAccess interface only, against expected answers, from several
// threads at once.
//
//   edaccess_test TABLE_DIR GAME EXPECTED_FILE
//
// GAME is an EdAccess game type ("russian", "checkers", ...). EXPECTED_FILE
// has one position a line, White to move: white, black and king masks in
// hex (bit i = board square i, b8 first), 0, and the expected result
// (generator/tests/engines.rs writes it from `damka probe --json`). Prints
// "N passed, M failed".
#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

#include "damka_edaccess.hpp"

namespace {

struct Case {
    unsigned white, black, kings;
    int expected;
};

std::vector<Case> cases;
std::atomic<long> passed(0), failed(0);

void check(bool ok, const char *what, const Case &c, long got) {
    if (ok) {
        ++passed;
        return;
    }
    if (failed++ < 20)
        std::fprintf(stderr, "FAIL %s: %08x %08x %08x: got %ld, expected %d\n", what, c.white, c.black, c.kings, got,
                     c.expected);
}

// The board as an engine fills it: square i from b8 to g1.
EdAccess::EdBoard1 board_of(const Case &c) {
    EdAccess::EdBoard1 b;
    for (unsigned i = 0; i < 32; i++) {
        unsigned bit = 1u << i;
        unsigned char code = EdAccess::empty;
        if (c.white & bit) code = EdAccess::white;
        if (c.black & bit) code = EdAccess::black;
        if (c.kings & bit) code |= EdAccess::king;
        b.board[i] = code;
    }
    return b;
}

unsigned count(unsigned mask) {
    unsigned n = 0;
    for (; mask; mask &= mask - 1) n++;
    return n;
}

void probe_all(EdAccess *ed, size_t start) {
    for (size_t k = 0; k < cases.size(); k++) {
        const Case &c = cases[(start + k) % cases.size()];
        EdAccess::EdBoard1 b = board_of(c);
        int before = ed->GetResult(&b, EdAccess::in_mem);
        check(before == c.expected || before == EdAccess::not_found, "in_mem before", c, before);
        check(ed->GetResult(&b, 0) == c.expected, "GetResult(board)", c, ed->GetResult(&b, 0));
        check(ed->GetResult(&b, EdAccess::in_mem) == c.expected, "in_mem after", c, 0);

        // The same position as piece lists.
        std::vector<unsigned char> lists[4];
        for (unsigned char i = 0; i < 32; i++) {
            unsigned bit = 1u << i, king = (c.kings & bit) ? 1 : 0;
            if (c.white & bit) lists[king].push_back(i);
            if (c.black & bit) lists[2 + king].push_back(i);
        }
        EdAccess::EdBoard2 b2 = {lists[0].data(), (unsigned)lists[0].size(), lists[1].data(), (unsigned)lists[1].size(),
                                 lists[2].data(), (unsigned)lists[2].size(), lists[3].data(), (unsigned)lists[3].size()};
        check(ed->GetResult(&b2, 0) == c.expected, "GetResult(lists)", c, ed->GetResult(&b2, 0));

        // By table and index.
        unsigned wk = count(c.white & c.kings), bk = count(c.black & c.kings);
        unsigned wm = count(c.white) - wk, bm = count(c.black) - bk;
        unsigned table = ed->GetTable(wm, wk, bm, bk);
        if (c.expected == EdAccess::not_found) {
            check(table == 0, "no table", c, table);
            continue;
        }
        check(table != 0 && table == ed->GetTable(wm, wk, bm, bk, 3), "GetTable", c, table);
        unsigned long long index = ed->GetIndex(&b);
        check(index == ed->GetIndex(&b2), "GetIndex", c, (long)index);
        check(ed->GetResult(table, index, 0) == c.expected, "GetResult(table, index)", c,
              ed->GetResult(table, index, 0));
    }
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: edaccess_test TABLE_DIR GAME EXPECTED_FILE\n");
        return 2;
    }
    if (std::FILE *f = std::fopen(argv[3], "r")) {
        Case c;
        int turn;
        while (std::fscanf(f, "%x %x %x %d %d", &c.white, &c.black, &c.kings, &turn, &c.expected) == 5)
            cases.push_back(c);
        std::fclose(f);
    }
    if (cases.empty()) {
        std::fprintf(stderr, "no cases in %s\n", argv[3]);
        return 2;
    }

    damka::EdAccessTables tables(argv[1], 64 << 20);
    EdAccess *ed = &tables;
    Case none = {0, 0, 0, 0};
    check(ed->Load((char *)"russianlosers") == 0, "losers games have no tables", none, 0);
    check(ed->GetResult((EdAccess::EdBoard1 *)nullptr, 0) == damka::EdAccessTables::invalid_board, "NULL board",
          none, 0);
    check(ed->Load(argv[2]) == 4, "Load", none, 0);
    check(std::string(ed->GetBaseType()) == argv[2], "GetBaseType", none, 0);

    // A lone king against a lone king: one block, in memory once probed.
    unsigned kvk = ed->GetTable(0, 1, 0, 1);
    check(kvk != 0 && !ed->IsTableInMemory(kvk), "KvK not in memory before a probe", none, kvk);

    // Invalid codes and boards are errors, not results.
    Case first = cases[0];
    EdAccess::EdBoard1 bad = board_of(first);
    bad.board[0] = 3;
    check(ed->GetResult(&bad, 0) == damka::EdAccessTables::invalid_board, "code 3", first, ed->GetResult(&bad, 0));
    bad = board_of(first);
    bad.board[0] = EdAccess::white; // a White man on its promotion row (b8)
    bad.board[31] = EdAccess::black | EdAccess::king;
    int on_last_row = ed->GetResult(&bad, 0);
    check(on_last_row == damka::EdAccessTables::invalid_board, "man on its last row", first, on_last_row);

    std::vector<std::thread> threads;
    for (size_t t = 0; t < 4; t++) threads.emplace_back(probe_all, ed, t * cases.size() / 4);
    for (auto &t : threads) t.join();

    EdAccess::EdBoard1 kings = board_of(Case{1u << 21, 1u << 10, (1u << 21) | (1u << 10), 0});
    check(ed->GetResult(&kings, 0) != EdAccess::not_found && ed->IsTableInMemory(kvk) == 1, "KvK in memory", none,
          kvk);
    std::printf("%ld passed, %ld failed\n", passed.load(), failed.load());
    return failed ? 1 : 0;
}
