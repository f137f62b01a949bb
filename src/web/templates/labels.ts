import { COUNTRIES, isCountryCode } from '../../contract/countries.ts';

export function planLabel(plan: string): string {
  return plan === 'trial'
    ? 'Trial (pay per row after it)'
    : plan === 'unlimited'
      ? 'Unlimited'
      : 'Pay per row';
}

export function orderLabel(kind: string, country: string | null): string {
  if (kind === 'topup') return 'Credit top-up';
  if (kind === 'unlimited') return 'Unlimited plan';
  const name = country && isCountryCode(country) ? COUNTRIES[country].name : (country ?? '');
  return `${name} plan`;
}
