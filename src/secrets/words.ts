// Whether a value's letters read as random rather than as words. The generic detector skips values
// made of words (identifiers such as SyntaxKind.EndOfFileToken or kEnumerableProperty), and a
// letters-only password matches those patterns too (`XkQmPzLwRtYvBnHjGfDs` splits into the "words" Xk,
// Qm, Pz…); this tells them apart before that skip applies.
//
// The test is the share of uncommon letter pairs. COMMON holds the 342 pairs that make up 99 % of the
// pairs in the identifiers and words of the Python 3.11 standard library (4.8 million pairs, case
// folded); the other 334 pairs are half of all pairs of random letters and about 1 % of words'.

const COMMON_PAIRS =
  "abacadaeafagaiakalamanaparasatauavawaxaybabcbdbebibjblbobpbrbsbubycacccecfchcickclcmcocpcrcsctcucydadbdcdddedfdidldndodrdsdtdudyeaebecedeeefegeheiekelemeneoepeqereseteuevewexeyfafcfdfefffiflfofpfrfsftfugageggghgiglgngogrgsgtguhahehihohrhthuiaibicidieifigiiikiliminioipirisitivixizjejojukakekiklknkskwlalblcldlelflilllnlolplsltlulymambmdmemimlmmmompmrmsmtmunancndnenfngninknlnmnnnonpnsntnunvnyoaobocodoeofogoiokolomonoooporosotouovowoxpapcpdpephpiplpoppprpsptpupyqurarbrcrdrerfrgrirkrlrmrnrorprrrsrtrurvrwrysascsesfsgshsiskslsmsnsospsrssstsuswsytatctdtetfthtitltmtntotptrtstttutwtyuaubucudueufuguiulumunuoupurusutvaveviwawdwewhwiwlwnwowrwsxaxbxcxdxexfxixmxpxtxxyeyiymynyoypyrysytzezizo";

const COMMON = new Set<string>(Array.from({ length: COMMON_PAIRS.length / 2 }, (_, k) => COMMON_PAIRS.slice(2 * k, 2 * k + 2)));

/** Below this many letters a value is too short to judge; words win. */
const MIN_LETTERS = 12;
/**
 * Random letters: about half their pairs are uncommon (at 20 letters fewer than a quarter in about 3
 * values of 100); identifiers a few percent, an acronym's pairs included. Words of other languages
 * can reach it (Polish `automatyczne`: 3 of 11): recall on random passwords was chosen over them.
 */
const RARE_SHARE = 0.25;

export function readsAsRandom(value: string): boolean {
  const runs = value.toLowerCase().split(/[^a-z]+/);
  let letters = 0;
  let pairs = 0;
  let rare = 0;
  for (const r of runs) {
    letters += r.length;
    for (let i = 1; i < r.length; i++) {
      pairs++;
      if (!COMMON.has(r.slice(i - 1, i + 1))) rare++;
    }
  }
  return letters >= MIN_LETTERS && pairs > 0 && rare / pairs >= RARE_SHARE;
}
