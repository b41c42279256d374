import type { Locale } from '../locale.ts';
import type { Section } from './sections.ts';

/**
 * The dashboard's words, in Brazilian Portuguese and English, as pages/checkout/messages.ts holds the
 * buyer's. Pages move here one at a time (decision 0090); those not yet here still speak English.
 */
const ptBR = {
  frame: {
    dashboard: 'Painel',
    brand: 'Painel de vendas',
    switchOrganization: 'Trocar de organização',
    signOut: 'Sair',
    sections: 'Seções',
  },
  sections: {
    metrics: 'Métricas',
    products: 'Produtos',
    'checkout-links': 'Links de pagamento',
    discounts: 'Cupons',
    customers: 'Clientes',
    subscriptions: 'Assinaturas',
    mandates: 'Pix Automático',
    sales: 'Vendas',
    refunds: 'Reembolsos',
    invoices: 'Cobranças avulsas',
    reconciliations: 'Conciliação',
    webhooks: 'Webhooks',
    events: 'Eventos',
    'api-keys': 'Chaves de API',
    'access-tokens': 'Tokens de acesso',
    members: 'Membros',
  } satisfies Record<Section, string> as Record<Section, string>,
  signIn: {
    title: 'Entrar',
    withProvider: 'Entrar com a conta da empresa',
    formLabel: 'Entrar com um token de acesso',
    token: 'Token de acesso',
    tokenHint: 'Peça à pessoa que administra a sua conta um link ou um token de acesso ao painel.',
    submit: 'Entrar',
    refused: 'Este token não foi aceito.',
    refusedDetail: 'Ele expirou ou não foi emitido para este painel. Peça um novo.',
  },
  refund: {
    refundable: (amount: string) => `Reembolsável: ${amount}`,
    amount: 'Valor (R$, opcional)',
    amountHint: 'Em reais, por exemplo 10,00. Vazio: todo o valor ainda reembolsável.',
    notAnAmount: 'Digite o valor em reais, por exemplo 10,00, ou deixe vazio.',
    overBalance: (amount: string) => `O valor é maior que o reembolsável (${amount}).`,
    nothingLeft: 'Não há mais nada a reembolsar nesta venda.',
  },
};

export type DashboardMessages = typeof ptBR;

const en: DashboardMessages = {
  frame: {
    dashboard: 'Dashboard',
    brand: 'Billing dashboard',
    switchOrganization: 'Switch organization',
    signOut: 'Sign out',
    sections: 'Sections',
  },
  sections: {
    metrics: 'Metrics',
    products: 'Products',
    'checkout-links': 'Checkout links',
    discounts: 'Discounts',
    customers: 'Customers',
    subscriptions: 'Subscriptions',
    mandates: 'Pix Automático',
    sales: 'Sales',
    refunds: 'Refunds',
    invoices: 'Extra charges',
    reconciliations: 'Reconciliation',
    webhooks: 'Webhooks',
    events: 'Events',
    'api-keys': 'API keys',
    'access-tokens': 'Access tokens',
    members: 'Members',
  },
  signIn: {
    title: 'Sign in',
    withProvider: "Sign in with your company's account",
    formLabel: 'Sign in with an access token',
    token: 'Access token',
    tokenHint: 'Ask the person who runs your account for a dashboard sign-in link or an access token.',
    submit: 'Sign in',
    refused: 'That token was not accepted.',
    refusedDetail: 'It has expired or was not issued for this dashboard. Ask for a new one.',
  },
  refund: {
    refundable: (amount: string) => `Refundable: ${amount}`,
    amount: 'Amount (R$, optional)',
    amountHint: 'In reais, e.g. 10,00. Empty: all that is still refundable.',
    notAnAmount: 'Enter the amount in reais, e.g. 10,00, or leave it empty.',
    overBalance: (amount: string) => `That is more than the refundable balance (${amount}).`,
    nothingLeft: 'Nothing is left to refund on this sale.',
  },
};

export const dashboardMessages = (locale: Locale): DashboardMessages => (locale === 'en' ? en : ptBR);
