import { describe, expect, it } from '@jest/globals';
import { capitaliseWords, upperFirst } from '../../src/contacts/labels.js';

describe('labels', () => {
  it.each([
    ['mobile', 'Mobile'],
    ['Mobile', 'Mobile'],
    ['hOME', 'HOME'],
    ['work phone', 'Work phone'],
    ['éclair', 'Éclair'],
    ['1st line', '1st line'],
    ['', ''],
  ])('type %j: first letter upper-cased only -> %j', (input, output) => {
    expect(upperFirst(input)).toBe(output);
  });

  it.each([
    ['salary and wages', 'Salary And Wages'],
    ['home loan', 'Home Loan'],
    ['rent', 'Rent'],
    ['credit card debt', 'Credit Card Debt'],
    ['ALREADY UPPER', 'ALREADY UPPER'],
    ['self-employed income', 'Self-employed Income'],
    ['two  spaces\tand tab', 'Two  Spaces\tAnd Tab'],
    ['', ''],
  ])('category %j: every word capitalised -> %j', (input, output) => {
    expect(capitaliseWords(input)).toBe(output);
  });
});
