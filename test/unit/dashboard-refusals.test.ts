import { describe, expect, it } from '@jest/globals';
import { refusalWords } from '../../pages/dashboard/messages-refusals.ts';

/** The dashboard's alert for an API refusal: the merchant's language, by the error's code. */
describe('a refusal on the dashboard', () => {
  const duplicateSlug = { error: 'Slug already taken', code: 'conflict', detail: 'slug acme is in use' };
  const badForm = {
    error: 'Invalid request',
    code: 'validation_error',
    detail:
      'body.name: Too small: expected string to have >=1 characters; body.price_amount: Invalid input; body.name: x',
  };

  it('is worded by its code in Portuguese, never with the API’s English words', () => {
    expect(refusalWords('pt-BR', 409, duplicateSlug)).toEqual({
      title: 'Esta alteração conflita com uma feita agora há pouco. Recarregue a página e tente de novo.',
      detail: 'Código: conflict',
    });
  });

  it('names the fields a 400 found wrong, once each, without the English reasons', () => {
    expect(refusalWords('pt-BR', 400, badForm)).toEqual({
      title: 'Os dados não foram aceitos. Confira os campos do formulário.',
      detail: 'Campos: name, price_amount · Código: validation_error',
    });
  });

  it('falls back to its status for a code the catalogue lacks, any 5xx as a 500', () => {
    expect(refusalWords('pt-BR', 422, { error: 'Nope', code: 'some_new_rule' }).title).toBe(
      'Os dados não foram aceitos.',
    );
    expect(refusalWords('pt-BR', 418, { error: 'Nope', code: 'teapot' }).title).toBe('Os dados não foram aceitos.');
    expect(refusalWords('pt-BR', 503, {}).title).toBe('Algo deu errado do nosso lado. Tente de novo em instantes.');
    expect(refusalWords('pt-BR', 404, {})).toEqual({ title: 'Não encontrado.', detail: null });
  });

  it('shows the API’s own words on an English page', () => {
    expect(refusalWords('en', 409, duplicateSlug)).toEqual({
      title: 'Slug already taken',
      detail: 'slug acme is in use · Code: conflict',
    });
    expect(refusalWords('en', 500, { code: 'internal_error' }).title).toBe(
      'Something went wrong on our side. Try again in a moment.',
    );
  });
});
