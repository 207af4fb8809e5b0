// Compiled by tsc, never run: the generated v2 LeadInput type takes each valid shape and refuses
// a body without a person field. An `@ts-expect-error` line that compiles fails the build.
import type { components } from '../generated/v2.js';

type LeadInput = components['schemas']['LeadInput'];

export const withPerson: LeadInput = { title: 'A', person: 'Pat' };
export const withPersonName: LeadInput = { title: 'A', person_name: 'Pat' };
export const withBoth: LeadInput = { title: 'A', person: 'Pat', person_name: 'Pat Example' };
export const withMore: LeadInput = { title: 'A', person_name: 'Pat', purchase_price: 25000, email: null };
export const nullOther: LeadInput = { title: 'A', person: 'Pat', person_name: null };

// @ts-expect-error neither person field
export const neither: LeadInput = { title: 'A' };
// @ts-expect-error both person fields null
export const bothNull: LeadInput = { title: 'A', person: null, person_name: null };
// @ts-expect-error no title
export const noTitle: LeadInput = { person: 'Pat' };
// @ts-expect-error a title that is not a string
export const numericTitle: LeadInput = { title: 5, person: 'Pat' };
// @ts-expect-error a key the API does not read
export const misspelt: LeadInput = { title: 'A', person: 'Pat', purchse_price: 1 };
