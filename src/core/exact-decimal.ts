/**
 * A DECIMAL as DuckDB prints it (`123456789012345678901234567890.12`, `1.50`): a JavaScript
 * number would lose digits beyond about 15 and the scale's trailing zeros. Text and CSV show
 * the text, and docpipe's JSON output writes it as a number with every digit (jsonText). A
 * library caller's JSON.stringify gets a number when one holds the value exactly (up to 15
 * significant digits), else the text, as for integers beyond 2^53.
 */
export class ExactDecimal {
  constructor(readonly text: string) {}

  toString(): string {
    return this.text;
  }

  toJSON(): number | string {
    const digits = this.text.replace(/[-.]/g, '').replace(/^0+/, '').replace(/0+$/, '');
    return digits.length <= 15 ? Number(this.text) : this.text;
  }
}
