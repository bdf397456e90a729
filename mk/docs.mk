# mk/docs.mk - the docs against the code (included by the Makefile).
#
# Part of make test:
#   tests/test_docs.sh      every ecs_*/ECS_* name README.md and ecs.h's doc
#                           block mention exists in ecs.h; README.md's
#                           "section N (TITLE)" references name the doc
#                           block's sections by number and title; the table
#                           of contents matches the headings
#   tests/test_readme.sh    README.md's ```c blocks compiled as C99 and as
#                           C++ (-Wall -Wextra -Wpedantic -Werror), and run
#   tests/test_stb_hint.sh  without stb_ds.h, ecs.h's #error says what to
#                           install; without its implementation, the link
#                           error is the one the header comment names
TEST_CMDS += 'sh tests/test_docs.sh $(B)/docs'
TEST_CMDS += 'CC="$(CC)" CXX="$(CXX)" CLANGXX="$(if $(HAVE_CLANG),$(CLANGXX))" STB_CFLAGS="$(STB_CFLAGS)" \
              sh tests/test_readme.sh $(B)/readme'
TEST_CMDS += 'STB_CFLAGS="$(STB_CFLAGS)" sh tests/test_stb_hint.sh $(B)/stb-hint $(CC) $(CXX) \
              $(if $(HAVE_CLANG),$(CLANG) $(CLANGXX))'
